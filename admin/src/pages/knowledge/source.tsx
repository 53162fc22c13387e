/** #/knowledge/source/<id>: one source, its documents (pages or files), and for admins: edit, reindex, delete. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { go } from '../../router.js';
import { useSession } from '../../session.js';
import { EmptyState, PageHeader } from '../../ui/layout.js';
import { RelativeTime } from '../../ui/time.js';
import { ErrorText, Form, FormErrors, Loading, plural, TextField, useAction, useLoad } from '../../ui.js';
import { ConfirmButton, fmtBytes, Pill, Progress, usePoll } from '../kit/kit.js';
import { busy, FIX, KIND_TEXT, type KDocument, type Source } from './types.js';

export function SourcePage({ id }: { id: string }) {
  const { atLeast } = useSession();
  const canEdit = atLeast('admin');
  const load = async () => {
    const [all, docs] = await Promise.all([api<{ items: Source[] }>('GET', '/knowledge'), api<{ items: KDocument[] }>('GET', `/knowledge/${encodeURIComponent(id)}/documents`)]);
    const source = all.items.find((s) => s.id === id);
    if (!source) throw new Error('This source no longer exists. It may have been deleted.');
    return { source, docs: docs.items };
  };
  const data = useLoad(load, [id]);
  const act = useAction();
  usePoll(() => { load().then((d) => data.setData(d), () => {}); }, 1000, !!data.data && busy(data.data.source));
  const back = { href: '#/knowledge', text: 'Knowledge' };
  if (!data.data) return <><PageHeader title="Source" back={back} /><Loading error={data.error} /></>;
  const { source: s, docs } = data.data;
  const reindex = () => act.run(async () => { await api('POST', `/knowledge/${encodeURIComponent(id)}/reindex`); data.reload(); });
  const remove = () => act.run(async () => { await api('DELETE', `/knowledge/${encodeURIComponent(id)}`); go('/knowledge'); });
  return (
    <>
      <PageHeader title={s.name} back={back} description={<><span class="kind">{KIND_TEXT[s.kind]}</span> {s.url ?? s.file?.filename ?? ''}</>}
        actions={canEdit && (
          <>
            <button type="button" class="secondary" disabled={act.busy || busy(s)} onClick={reindex}>Reindex</button>
            <ConfirmButton label="Delete source" question={`Delete “${s.name}”?`} confirm="Delete" onConfirm={remove} />
          </>
        )} />
      <ErrorText error={act.error} />
      <div class="row-card">
        <div class="row-head">
          {s.status === 'ready' ? <Pill tone="good">Ready</Pill> : s.status === 'failed' ? <Pill tone="bad">Failed</Pill> : <Pill tone="busy">Indexing</Pill>}
          <span class="muted">{plural(s.documentCount, 'document')} · {plural(s.chunkCount, 'passage')} · {s.status === 'failed' ? 'failed' : 'indexed'} <RelativeTime ms={s.indexedAt} empty="not yet" /></span>
        </div>
        {busy(s) && <Progress done={s.progress.done} total={s.progress.total} label={`Indexing ${s.name}`} />}
        {s.error && <p class="error">{s.status === 'failed' ? <>Indexing failed: {s.error}. {FIX[s.kind]}</> : s.error}</p>}
      </div>
      {canEdit && <EditSource s={s} onSaved={(next) => data.setData({ source: next, docs })} />}
      <h2>Documents</h2>
      {docs.length === 0 ? (
        <EmptyState title={busy(s) ? 'Reading pages…' : 'No documents'}>
          {busy(s) ? 'Documents appear here as they are indexed.' : 'Nothing could be read from this source. Check the address, then reindex.'}
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="list stack documents">
            <thead><tr><th>Title</th><th>Type</th><th class="num">Size</th><th class="num">Passages</th><th>Indexed</th></tr></thead>
            <tbody>
              {docs.map((d) => (
                <tr key={d.id}>
                  <td data-label="Title">{d.title || 'Untitled'}{d.url && <div><a href={d.url} target="_blank" rel="noopener noreferrer"><small>{d.url}</small></a></div>}</td>
                  <td data-label="Type">{d.type}</td>
                  <td data-label="Size" class="num">{fmtBytes(d.bytes)}</td>
                  <td data-label="Passages" class="num">{d.chunkCount}</td>
                  <td data-label="Indexed"><RelativeTime ms={d.indexedAt} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** Name, address and limits; a changed address or text is indexed again by the server. */
function EditSource({ s, onSaved }: { s: Source; onSaved: (s: Source) => void }) {
  const [name, setName] = useState(s.name);
  const [url, setUrl] = useState(s.url ?? '');
  const [maxPages, setMaxPages] = useState(String(s.settings?.maxPages ?? 200));
  const [maxDepth, setMaxDepth] = useState(String(s.settings?.maxDepth ?? 3));
  const [saved, setSaved] = useState(false);
  const act = useAction();
  const save = () => act.run(async () => {
    setSaved(false);
    const body: Record<string, unknown> = { name: name.trim() };
    if (s.url !== null && url.trim() !== s.url) body.url = url.trim();
    if (s.kind === 'sitemap' || s.kind === 'crawl') body.settings = { maxPages: Number(maxPages), ...(s.kind === 'crawl' ? { maxDepth: Number(maxDepth) } : {}) };
    onSaved(await api<Source>('PATCH', `/knowledge/${encodeURIComponent(s.id)}`, body));
    setSaved(true);
  });
  return (
    <details class="more">
      <summary>Edit source</summary>
      <Form onSubmit={save} class="card" name="edit-source">
        <div class="grid2">
          <TextField label="Name" name="name" value={name} onInput={(v) => { setName(v); setSaved(false); }} required errors={act.fields} />
          {s.url !== null && <TextField label="Address" name="url" type="url" value={url} onInput={(v) => { setUrl(v); setSaved(false); }} required errors={act.fields} />}
          {(s.kind === 'sitemap' || s.kind === 'crawl') && <TextField label="Most pages (1–2000)" name="maxPages" path="settings.maxPages" type="number" value={maxPages} onInput={setMaxPages} errors={act.fields} />}
          {s.kind === 'crawl' && <TextField label="Link depth (0–10)" name="maxDepth" path="settings.maxDepth" type="number" value={maxDepth} onInput={setMaxDepth} errors={act.fields} />}
        </div>
        <button type="submit" disabled={act.busy}>Save</button>
        {saved && <span class="ok" role="status"> Saved.</span>}
        <FormErrors act={act} shown={['name', 'url', 'settings.maxPages', 'settings.maxDepth']} />
      </Form>
    </details>
  );
}
