/** #/providers/<id>: one connection: test, rename, replace the key, remove; its models and voices (with previews). */
import { useState } from 'preact/hooks';
import { api, localPath, query } from '../../api.js';
import { go } from '../../router.js';
import { useSession } from '../../session.js';
import {
  confirmDialog, EmptyState, ErrorText, Form, Loading, PageHeader, RelativeTime, Section, TextField, toast, useAction, useLoad,
} from '../../ui.js';
import { serviceName } from './index.js';
import type { Connection, Models, Voice } from './model.js';

export function ConnectionPage({ id }: { id: string }) {
  const { atLeast } = useSession();
  const admin = atLeast('admin');
  const conn = useLoad(async () => {
    const found = (await api<{ items: Connection[] }>('GET', '/providers')).items.find((c) => c.id === id);
    if (!found) throw new Error('This connection does not exist (it may have been removed). Go back to Providers.');
    return found;
  }, [id]);
  const test = useAction();
  const [result, setResult] = useState<{ ok: boolean; message: string; checkedAt: number } | null>(null);
  if (!conn.data) return <Loading error={conn.error} />;
  const c = conn.data;
  const runTest = () => test.run(async () => setResult(await api('POST', `/providers/${id}/test`)));
  const remove = async () => {
    if (!(await confirmDialog({ title: `Remove ${c.name}?`, message: 'Bots using this connection stop answering until you pick another. The key is deleted; this cannot be undone.', confirmText: 'Remove', danger: true }))) return;
    await test.run(async () => { await api('DELETE', `/providers/${id}`); toast(`${c.name} removed`); go('/providers'); });
  };
  return (
    <>
      <PageHeader back={{ href: '#/providers', text: 'Providers' }} title={c.name}
        description={<>{serviceName(c)} · kind {c.letter} · key <code>{c.keyHint}</code>{c.baseUrl ? <> · <code>{c.baseUrl}</code></> : null}</>}
        actions={admin ? <>
          <button type="button" onClick={runTest} disabled={test.busy}>{test.busy ? 'Testing…' : 'Test connection'}</button>
          <button type="button" class="danger" onClick={remove}>Remove</button>
        </> : undefined} />
      {result && <p class={result.ok ? 'notice' : 'error'} role="status">{result.ok ? '✓ ' : ''}{result.message} <span class="muted">(<RelativeTime ms={result.checkedAt} />)</span></p>}
      <ErrorText error={test.error} />
      {admin && <EditConnection c={c} onSaved={(n) => conn.setData(n)} />}
      {c.letter !== 'D' && <ModelList id={id} />}
      {(c.kind === 'openai' || c.kind === 'speech' || c.kind === 'gemini') && <VoiceList id={id} />}
    </>
  );
}

function EditConnection({ c, onSaved }: { c: Connection; onSaved: (c: Connection) => void }) {
  const [name, setName] = useState(c.name);
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(c.baseUrl ?? '');
  const act = useAction();
  const save = () => act.run(async () => {
    const body: Record<string, unknown> = {};
    if (name !== c.name) body.name = name;
    if (apiKey) body.apiKey = apiKey;
    if (baseUrl !== (c.baseUrl ?? '')) body.baseUrl = baseUrl || null;
    if (!Object.keys(body).length) return;
    onSaved(await api<Connection>('PATCH', `/providers/${c.id}`, body));
    setApiKey('');
    toast(body.apiKey ? 'Key replaced (checked with the provider first)' : 'Saved');
  });
  return (
    <Section title="Connection" description="Rename it, or replace the key (the new key is checked before it replaces the old one).">
      <Form onSubmit={save} name="edit-connection">
        <TextField label="Name" name="name" value={name} onInput={setName} required errors={act.fields} />
        <TextField label="New API key" name="apiKey" type="password" value={apiKey} onInput={setApiKey} autocomplete="off" errors={act.fields}
          hint={<>Leave empty to keep the current key (<code>{c.keyHint}</code>).</>} />
        {(c.kind === 'openai_compatible' || c.baseUrl) && <TextField label="Base URL" name="baseUrl" value={baseUrl} onInput={setBaseUrl} errors={act.fields} />}
        {!Object.keys(act.fields).length && <ErrorText error={act.error} />}
        <button type="submit" disabled={act.busy}>{act.busy ? 'Saving…' : 'Save'}</button>
      </Form>
    </Section>
  );
}

function ModelList({ id }: { id: string }) {
  const [refresh, setRefresh] = useState(0);
  const models = useLoad(() => api<Models>('GET', `/providers/${id}/models${query({ refresh: refresh ? 1 : undefined })}`), [id, refresh]);
  return (
    <Section title="Models" id="models" description={models.data ? <>What this key can use, as the provider listed it <RelativeTime ms={models.data.cachedAt} />.</> : undefined}
      actions={<button type="button" class="secondary small" onClick={() => setRefresh((n) => n + 1)}>Ask the provider again</button>}>
      {!models.data ? <Loading error={models.error} /> : models.data.items.length === 0
        ? <EmptyState title="No models listed">The provider listed no models for this key. Check the key's project or permissions with the provider, then ask again.</EmptyState>
        : (
          <div class="table-wrap">
            <table class="list">
              <thead><tr><th scope="col">Model</th><th scope="col">Can</th></tr></thead>
              <tbody>
                {models.data.items.map((m) => (
                  <tr key={m.id}>
                    <td><code>{m.id}</code>{m.id === models.data!.recommended && <> <span class="badge good">recommended</span></>}</td>
                    <td class="row">{Object.entries(m.capabilities).filter(([, v]) => v).map(([k]) => <span class="badge" key={k}>{k}</span>)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </Section>
  );
}

function VoiceList({ id }: { id: string }) {
  const voices = useLoad(() => api<{ items: Voice[] }>('GET', `/providers/${id}/voices`), [id]);
  const [playing, setPlaying] = useState<string | null>(null);
  return (
    <Section title="Voices" id="voices" description="Press Play to hear a short sample (made by the provider the first time, then kept for an hour).">
      {!voices.data ? <Loading error={voices.error} /> : voices.data.items.length === 0
        ? <EmptyState title="No voices">This connection offers no voices. Connect OpenAI, Gemini or a speech provider for spoken replies.</EmptyState>
        : (
          <ul class="grid voices">
            {voices.data.items.map((v) => (
              <li class="tile" key={v.id}>
                <h3>{v.name}</h3>
                <span class="muted">{v.language ?? 'any language'} · <code>{v.id}</code></span>
                {playing === v.id
                  ? <audio controls autoplay src={localPath(v.previewUrl)} aria-label={`Sample of ${v.name}`} />
                  : <button type="button" class="secondary small" onClick={() => setPlaying(v.id)} aria-label={`Play a sample of ${v.name}`}>▶ Play</button>}
              </li>
            ))}
          </ul>
        )}
    </Section>
  );
}
