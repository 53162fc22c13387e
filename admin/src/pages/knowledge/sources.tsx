/** The knowledge sources with their ingestion progress, polled while any source is being indexed (the live socket carries no knowledge events). */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import { EmptyState } from '../../ui/layout.js';
import { RelativeTime } from '../../ui/time.js';
import { ErrorText, Loading, plural, useAction, useLoad } from '../../ui.js';
import { ConfirmButton, Pill, Progress, usePoll } from '../kit/kit.js';
import { AddSource } from './add-source.js';
import { busy, FIX, KIND_TEXT, type Source } from './types.js';

const POLL_MS = 1000;

export function SourcesTab() {
  const { atLeast } = useSession();
  const canEdit = atLeast('admin');
  const list = useLoad(() => api<{ items: Source[] }>('GET', '/knowledge'));
  const [quiet, setQuiet] = useState(0);
  // The form is open while there is nothing yet; otherwise behind a button, so the list comes first.
  const [adding, setAdding] = useState<boolean | null>(null);
  // A quiet reload keeps the list on screen (no "Loading…" flash) while polling.
  usePoll(() => { api<{ items: Source[] }>('GET', '/knowledge').then((d) => list.setData(d), () => setQuiet((n) => n + 1)); }, POLL_MS, !!list.data?.items.some(busy));
  const added = (s: Source) => { setAdding(false); list.setData((d) => ({ items: [s, ...(d?.items ?? []).filter((x) => x.id !== s.id)] })); };
  const open = adding ?? list.data?.items.length === 0;

  return (
    <>
      {canEdit && (open ? <AddSource onAdded={added} onCancel={list.data?.items.length ? () => setAdding(false) : undefined} />
        : list.data && <p><button type="button" onClick={() => setAdding(true)}>Add a source</button></p>)}
      {!list.data ? <Loading error={list.error} /> : list.data.items.length === 0 ? (
        <EmptyState title="No knowledge yet">
          {canEdit ? 'Add your help centre, a sitemap, or a file with the form above. Pages are read, split into passages and indexed; then turn on knowledge in a bot\'s settings.'
            : 'An admin adds web pages, files or text here; bots then answer from them.'}
        </EmptyState>
      ) : (
        <div class="rows sources" aria-live="polite" data-quiet={quiet}>
          {list.data.items.map((s) => <SourceRow key={s.id} s={s} canEdit={canEdit} onChange={list.reload} />)}
        </div>
      )}
    </>
  );
}

function Status({ s }: { s: Source }) {
  if (s.status === 'ready') return <Pill tone="good">Ready</Pill>;
  if (s.status === 'failed') return <Pill tone="bad">Failed</Pill>;
  return <Pill tone="busy">{s.status === 'queued' ? 'Queued' : 'Indexing'}</Pill>;
}

function SourceRow({ s, canEdit, onChange }: { s: Source; canEdit: boolean; onChange: () => void }) {
  const act = useAction();
  const reindex = () => act.run(async () => { await api('POST', `/knowledge/${encodeURIComponent(s.id)}/reindex`); onChange(); });
  const remove = () => act.run(async () => { await api('DELETE', `/knowledge/${encodeURIComponent(s.id)}`); onChange(); });
  const where = s.url ?? (s.file ? s.file.filename : s.textChars !== undefined ? `${s.textChars.toLocaleString()} characters of text` : '');
  return (
    <article class="row-card source" data-id={s.id} data-status={s.status}>
      <div class="row-head">
        <span class="kind">{KIND_TEXT[s.kind]}</span>
        <h2 class="grow"><a href={`#/knowledge/source/${encodeURIComponent(s.id)}`}>{s.name}</a></h2>
        <Status s={s} />
      </div>
      {where && <div class="row-meta"><span class="where">{where}</span></div>}
      {busy(s) && <Progress done={s.progress.done} total={s.progress.total} label={`Indexing ${s.name}`} />}
      <div class="row-meta">
        <span class="counts">{plural(s.documentCount, 'document')} · {plural(s.chunkCount, 'passage')}</span>
        {s.status === 'failed' ? <span class="error">Failed <RelativeTime ms={s.indexedAt} empty="" /></span> : <span>Indexed <RelativeTime ms={s.indexedAt} empty="not yet" /></span>}
      </div>
      {s.error && <p class="error">{s.status === 'failed' ? <>Indexing failed: {s.error}. {FIX[s.kind]}</> : s.error}</p>}
      <div class="row-actions">
        <a class="button secondary small" href={`#/knowledge/source/${encodeURIComponent(s.id)}`}>Documents</a>
        {canEdit && <button type="button" class="secondary small" disabled={act.busy || busy(s)} onClick={reindex}>Reindex</button>}
        {canEdit && <ConfirmButton class="secondary danger small" label="Delete" question={`Delete “${s.name}”?`} message={`Its ${s.documentCount} ${s.documentCount === 1 ? 'document is' : 'documents are'} removed from the knowledge at once. This cannot be undone.`} onConfirm={remove} disabled={act.busy} />}
      </div>
      <ErrorText error={act.error} />
    </article>
  );
}
