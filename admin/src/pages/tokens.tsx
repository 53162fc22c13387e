/** #/tokens: API tokens for programs: create (name and scopes; the value is shown once) and revoke. */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Token } from '../types.js';
import { ErrorText, Field, Form, Loading, useAction, useLoad, when } from '../ui.js';

/** The scopes of service-api.md (Authentication), in its order. */
const SCOPES = [
  'bots:read', 'bots:write', 'conversations:read', 'conversations:write', 'leads:read', 'leads:write', 'knowledge:write',
  'analytics:read', 'providers:write', 'tools:write', 'webhooks:write', 'privacy:write', 'settings:read',
];

export function TokensPage() {
  const tokens = useLoad(() => api<{ items: Token[] }>('GET', '/tokens'));
  const act = useAction();
  const revoke = (t: Token) => act.run(async () => { await api('DELETE', `/tokens/${encodeURIComponent(t.id)}`); tokens.reload(); });
  return (
    <section>
      <h1>API tokens</h1>
      <p class="muted">Programs send a token as <code>Authorization: Bearer &lt;token&gt;</code>. It acts with the highest role its scopes imply.</p>
      <CreateToken onCreated={tokens.reload} />
      {!tokens.data ? <Loading error={tokens.error} /> : tokens.data.items.length === 0 ? <p class="muted">No tokens yet.</p> : (
        <table class="list tokens">
          <thead><tr><th>Name</th><th>Scopes</th><th>Created</th><th>Last used</th><th>Expires</th><th></th></tr></thead>
          <tbody>
            {tokens.data.items.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td><td>{t.scopes.join(', ')}</td><td>{when(t.createdAt)}</td><td>{when(t.lastUsedAt)}</td>
                <td>{t.expiresAt ? when(t.expiresAt) : 'never'}</td>
                <td><button type="button" class="link danger" disabled={act.busy} onClick={() => revoke(t)}>Revoke</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorText error={act.error} />
    </section>
  );
}

function CreateToken({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['bots:read']);
  const [value, setValue] = useState<string | null>(null);
  const act = useAction();
  const toggle = (s: string, on: boolean) => setScopes((old) => (on ? [...old, s] : old.filter((x) => x !== s)));
  const submit = () => act.run(async () => {
    const r = await api<{ value: string }>('POST', '/tokens', { name, scopes });
    setValue(r.value);
    setName('');
    onCreated();
  });
  return (
    <Form onSubmit={submit} class="card" name="create-token">
      <Field label="Token name" name="name" value={name} onInput={setName} required />
      <fieldset class="scopes">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s} class="check"><input type="checkbox" name="scope" value={s} checked={scopes.includes(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} /> {s}</label>
        ))}
      </fieldset>
      <button type="submit" disabled={act.busy}>Create token</button>
      <ErrorText error={act.error} />
      {value && (
        <div class="once" role="status">
          <p>Copy the token now: it is not shown again.</p>
          <input class="token-value" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" class="secondary" onClick={() => setValue(null)}>Done</button>
        </div>
      )}
    </Form>
  );
}

export default TokensPage;
