/**
 * #/tokens (admins): API tokens for programs. Create one with a name, scopes and an optional expiry; the value is
 * shown once, with a copy button. Revoking asks first and takes effect at once.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Token } from '../types.js';
import { confirmDialog, CopyButton, EmptyState, ErrorText, Form, Loading, PageHeader, RelativeTime, SelectField, TextField, toast, useAction, useLoad } from '../ui.js';

/** The scopes of service-api.md (Authentication), in its order, with the role each acts as. */
const SCOPES: Array<[string, string]> = [
  ['bots:read', 'viewer'], ['bots:write', 'admin'], ['conversations:read', 'viewer'], ['conversations:write', 'agent'], ['leads:read', 'viewer'],
  ['leads:write', 'agent'], ['knowledge:write', 'admin'], ['analytics:read', 'viewer'], ['providers:write', 'admin'], ['tools:write', 'admin'],
  ['webhooks:write', 'admin'], ['privacy:write', 'admin'], ['settings:read', 'viewer'],
];
const EXPIRY: Array<[string, string]> = [['', 'Never'], ['7', 'In 7 days'], ['30', 'In 30 days'], ['90', 'In 90 days'], ['365', 'In a year'], ['date', 'On a date…']];
const DAY_MS = 86_400_000;

export function TokensPage() {
  const tokens = useLoad(() => api<{ items: Token[] }>('GET', '/tokens'));
  const act = useAction();
  const revoke = async (t: Token) => {
    if (!(await confirmDialog({ title: `Revoke “${t.name}”?`, message: 'Programs using it get 401 from the next request. This cannot be undone.', confirmText: 'Revoke token', danger: true }))) return;
    if (await act.run(() => api('DELETE', `/tokens/${encodeURIComponent(t.id)}`))) { toast(`Token “${t.name}” revoked`); tokens.reload(); }
  };
  return (
    <section>
      <PageHeader title="API tokens" description={<>Programs send a token as <code>Authorization: Bearer &lt;token&gt;</code>. It acts with the highest role its scopes imply.</>} />
      <CreateToken onCreated={tokens.reload} />
      <ErrorText error={act.error} />
      {!tokens.data ? <Loading error={tokens.error} /> : tokens.data.items.length === 0 ? (
        <EmptyState title="No tokens yet">Create one above for a program that reads conversations, adds leads or manages bots through the API.</EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="list tokens stack">
            <thead><tr><th>Name</th><th>Scopes</th><th>Acts as</th><th>Created</th><th>Last used</th><th>Expires</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {tokens.data.items.map((t) => {
                const expired = t.expiresAt !== null && t.expiresAt <= Date.now();
                return (
                  <tr key={t.id} data-id={t.id}>
                    <td data-label="Name">{t.name}</td>
                    <td class="scopes-cell" data-label="Scopes">{t.scopes.map((s) => <span key={s} class="badge">{s}</span>)}</td>
                    <td data-label="Acts as">{t.role}</td>
                    <td data-label="Created"><RelativeTime ms={t.createdAt} /></td>
                    <td data-label="Last used"><RelativeTime ms={t.lastUsedAt} empty="never" /></td>
                    <td class="expires" data-label="Expires">{t.expiresAt === null ? 'never' : expired ? <span class="badge bad">expired</span> : <RelativeTime ms={t.expiresAt} />}</td>
                    <td><button type="button" class="danger small" disabled={act.busy} onClick={() => revoke(t)}>Revoke</button></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function CreateToken({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['conversations:read']);
  const [expiry, setExpiry] = useState('90');
  const [date, setDate] = useState('');
  const [value, setValue] = useState<string | null>(null);
  const act = useAction();
  const toggle = (s: string, on: boolean) => setScopes((old) => (on ? [...old, s] : old.filter((x) => x !== s)));
  const expiresAt = (): number | null => {
    if (expiry === '') return null;
    if (expiry === 'date') return date ? new Date(`${date}T23:59:59`).getTime() : NaN;
    return Date.now() + Number(expiry) * DAY_MS;
  };
  const submit = () => act.run(async () => {
    const at = expiresAt();
    if (Number.isNaN(at)) throw new Error('Choose the day the token expires.');
    const r = await api<{ value: string }>('POST', '/tokens', { name, scopes, expiresAt: at });
    setValue(r.value);
    setName('');
    onCreated();
  });
  return (
    <Form onSubmit={submit} class="card" name="create-token">
      <h2 class="card-title">Create a token</h2>
      <div class="inline-form">
        <TextField label="Token name" name="name" value={name} onInput={setName} required maxLength={100} errors={act.fields} placeholder="CRM sync" />
        <SelectField label="Expires" name="expiry" value={expiry} options={EXPIRY} onChange={setExpiry} errors={act.fields} path="expiresAt" />
        {expiry === 'date' && <TextField label="Expiry date" name="date" type="date" value={date} onInput={setDate} required />}
      </div>
      <fieldset class="scopes">
        <legend>Scopes</legend>
        {SCOPES.map(([s, role]) => (
          <label key={s} class="check"><input type="checkbox" name="scope" value={s} checked={scopes.includes(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} /> {s} <small class="muted">({role})</small></label>
        ))}
      </fieldset>
      {act.error && <p class="error" role="alert">{act.error}</p>}
      <button type="submit" disabled={act.busy || scopes.length === 0}>Create token</button>
      {value && (
        <div class="once" role="status">
          <p><strong>Copy the token now: it is not shown again.</strong></p>
          <div class="row"><input class="token-value" readOnly aria-label="The new token" value={value} onFocus={(e) => e.currentTarget.select()} /><CopyButton text={value} label="Copy token" /></div>
          <button type="button" class="secondary small" onClick={() => setValue(null)}>Done, I copied it</button>
        </div>
      )}
    </Form>
  );
}

export default TokensPage;
