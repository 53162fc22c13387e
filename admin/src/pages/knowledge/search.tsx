/** The search playground: what the agent would find for a question, with scores and excerpts. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { EmptyState } from '../../ui/layout.js';
import { ErrorText, Form, useAction, useLoad } from '../../ui.js';
import type { SearchAnswer, Source } from './types.js';

const MODE_TEXT = { hybrid: 'words and meaning (hybrid)', vector: 'meaning (vectors)', lexical: 'words only (no embedding provider)' };

export function SearchTab() {
  const sources = useLoad(() => api<{ items: Source[] }>('GET', '/knowledge'));
  const [q, setQ] = useState('');
  const [sourceId, setSourceId] = useState('');
  const [topK, setTopK] = useState('5');
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const act = useAction();
  const search = () => act.run(async () => {
    setAnswer(await api<SearchAnswer>('POST', '/knowledge/search', { query: q, topK: Number(topK), ...(sourceId ? { sourceIds: [sourceId] } : {}) }));
  });
  const nameOf = (id: string) => sources.data?.items.find((s) => s.id === id)?.name ?? id;
  const top = Math.max(...(answer?.results.map((r) => r.score) ?? [1]), 1e-9);
  return (
    <>
      <Form onSubmit={search} class="card toolbar search-form" name="search">
        <label class="field" style={{ flex: '1 1 18rem' }}><span>Ask what a visitor would ask</span>
          <input type="search" name="query" required value={q} onInput={(e) => setQ(e.currentTarget.value)} placeholder="Do you ship to Canada?" />
        </label>
        <label class="field"><span>Sources</span>
          <select name="source" value={sourceId} onChange={(e) => setSourceId(e.currentTarget.value)}>
            <option value="">All sources</option>
            {sources.data?.items.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
          </select>
        </label>
        <label class="field"><span>Results</span>
          <select name="topK" value={topK} onChange={(e) => setTopK(e.currentTarget.value)}>
            {['3', '5', '10', '20'].map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        <button type="submit" disabled={act.busy}>{act.busy ? 'Searching…' : 'Search'}</button>
      </Form>
      <ErrorText error={act.error} />
      {!answer ? (
        sources.data?.items.length === 0
          ? <EmptyState title="Nothing to search yet" action={<a class="button" href="#/knowledge">Add a source</a>}>Add a source first; then try the questions your visitors ask.</EmptyState>
          : <p class="muted">Type a question to see the passages a bot would read before answering, best first.</p>
      ) : (
        <div class="card search-results" aria-live="polite">
          <p class={answer.relevant ? 'ok verdict' : 'error verdict'}>
            {answer.relevant ? 'The agent would answer from these passages.'
              : 'Nothing here is close enough: the agent would say it does not know, and the question is counted as a gap.'}
          </p>
          <p class="muted"><small>Matched by {MODE_TEXT[answer.mode]}.</small></p>
          {answer.warning && <p class="error">{answer.warning}</p>}
          {answer.results.length === 0 ? <p class="muted">No passage matched. Add a source that answers this, or rephrase.</p> : (
            <ol class="results" style={{ paddingLeft: '1.25rem' }}>
              {answer.results.map((r) => (
                <li key={`${r.documentId}-${r.excerpt.slice(0, 20)}`} class="result">
                  <div class="row-head">
                    <strong class="grow">{r.url ? <a href={r.url} target="_blank" rel="noopener noreferrer">{r.title || r.url}</a> : r.title || 'Untitled'}</strong>
                    <span class="score" title="Relevance score"><span class="scorebar" aria-hidden="true"><span style={{ width: `${Math.round((r.score / top) * 100)}%` }} /></span>score {r.score.toFixed(3)}</span>
                  </div>
                  <small class="muted">from {nameOf(r.sourceId)}</small>
                  <p class="excerpt">{r.excerpt}</p>
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </>
  );
}
