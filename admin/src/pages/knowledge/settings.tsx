/** Which provider connection and model embed documents and queries (or words-only search without one). */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import { Form, FormErrors, Loading, useAction, useLoad } from '../../ui.js';

interface Settings { embedding: { connectionId: string; model: string | null } | null; explicit: boolean; reindexing?: string[] }
interface Connection { id: string; kind: string; name: string }
const EMBEDS = new Set(['openai', 'gemini', 'openai_compatible']);
/** The connectionId of the model built into the server (src/knowledge/settings.ts). */
const EMBEDDED = 'embedded';

export function SettingsTab() {
  const { atLeast } = useSession();
  const canEdit = atLeast('admin');
  const data = useLoad(async () => {
    const [settings, providers] = await Promise.all([api<Settings>('GET', '/knowledge/settings'), api<{ items: Connection[] }>('GET', '/providers')]);
    return { settings, connections: providers.items.filter((c) => EMBEDS.has(c.kind)) };
  });
  const [conn, setConn] = useState('');
  const [model, setModel] = useState('');
  const [reindex, setReindex] = useState(true);
  const [done, setDone] = useState<string | null>(null);
  const act = useAction();
  useEffect(() => {
    const e = data.data?.settings.embedding;
    setConn(e?.connectionId ?? ''); setModel(e?.connectionId === EMBEDDED ? '' : e?.model ?? '');
  }, [data.data]);
  if (!data.data) return <Loading error={data.error} />;
  const { settings, connections } = data.data;
  const chosen = connections.find((c) => c.id === conn);
  const save = () => act.run(async () => {
    setDone(null);
    const r = await api<Settings>('PUT', '/knowledge/settings', { embedding: conn ? { connectionId: conn, ...(model.trim() && conn !== EMBEDDED ? { model: model.trim() } : {}) } : null, reindex });
    setDone(r.reindexing?.length ? `Saved. ${r.reindexing.length} sources are being indexed again; see Sources for progress.` : 'Saved.');
    data.reload();
  });
  const current = !settings.embedding ? null
    : settings.embedding.connectionId === EMBEDDED ? 'the built-in model'
      : connections.find((c) => c.id === settings.embedding!.connectionId)?.name ?? settings.embedding.connectionId;
  return (
    <Form onSubmit={save} class="card knowledge-settings" name="knowledge-settings">
      <h2>Search by meaning</h2>
      <p class="muted">
        An embedding model lets bots find passages that mean the same as the question, not only those that share its words.
        {' '}Now: {current ? <strong>{current}{settings.embedding?.model ? `, ${settings.embedding.model}` : ', its default model'}</strong> : <strong>words only</strong>}
        {!settings.explicit && current ? (settings.embedding?.connectionId === EMBEDDED ? ' (chosen by default: no OpenAI or Gemini connection exists)' : ' (chosen by default: the oldest OpenAI or Gemini connection)') : ''}.
      </p>
      <p class="k-hint">The built-in model needs no provider and sends nothing out; it understands English only and reads about 5-10 passages a second on a small server. A provider's model is faster and understands more languages.</p>
      <fieldset disabled={!canEdit} class="grid2" style={{ border: 0, padding: 0, margin: 0, maxWidth: '44rem' }}>
        <label class="field"><span>Embedding connection</span>
          <select name="connection" value={conn} onChange={(e) => {
            // Another connection: the model named for the last one (or the built-in one's) does not carry over.
            const next = e.currentTarget.value;
            setConn(next);
            setModel(next === settings.embedding?.connectionId ? settings.embedding?.model ?? '' : '');
          }}>
            <option value="">None: search by words only</option>
            <option value={EMBEDDED}>Built-in model (no provider, English)</option>
            {connections.map((c) => <option key={c.id} value={c.id}>{c.name} ({c.kind})</option>)}
          </select>
        </label>
        {conn && conn !== EMBEDDED && (
          <label class="field"><span>{chosen?.kind === 'openai_compatible' ? 'Embedding model (required)' : 'Embedding model (optional)'}</span>
            <input name="model" aria-invalid={act.fields['embedding.model'] ? true : undefined} value={model} onInput={(e) => setModel(e.currentTarget.value)} required={chosen?.kind === 'openai_compatible'}
              placeholder={chosen?.kind === 'openai_compatible' ? 'nomic-embed-text' : 'the provider\'s default'} />
            {act.fields['embedding.model'] && <small class="field-error">{act.fields['embedding.model']}</small>}
          </label>
        )}
      </fieldset>
      {canEdit ? (
        <>
          <label class="check"><input type="checkbox" name="reindex" checked={reindex} onChange={(e) => setReindex(e.currentTarget.checked)} /> Index every source again with the new model (passages made by another model are not searched)</label>
          <div><button type="submit" disabled={act.busy}>Save settings</button></div>
          {done && <p class="ok" role="status">{done}</p>}
          <FormErrors act={act} shown={conn && conn !== EMBEDDED ? ['embedding.model'] : []} />
        </>
      ) : <p class="muted">Only admins change these settings.</p>}
    </Form>
  );
}
