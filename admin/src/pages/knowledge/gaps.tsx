/** Questions visitors asked that the knowledge could not answer, most recent first. */
import { api, query } from '../../api.js';
import { usePaged } from '../../paging.js';
import { EmptyState } from '../../ui/layout.js';
import { RelativeTime } from '../../ui/time.js';
import { ErrorText, Loading } from '../../ui.js';
import type { Page } from '../../types.js';
import type { Gap } from './types.js';

export function GapsTable({ items }: { items: Gap[] }) {
  return (
    <div class="table-wrap">
      <table class="list stack gaps">
        <thead><tr><th>Question</th><th class="num">Times asked</th><th>Last asked</th><th>First asked</th></tr></thead>
        <tbody>
          {items.map((g) => (
            <tr key={g.question}>
              <td data-label="Question">{g.question}</td>
              <td data-label="Times asked" class="num">{g.count}</td>
              <td data-label="Last asked"><RelativeTime ms={g.lastAskedAt} /></td>
              <td data-label="First asked"><RelativeTime ms={g.firstAskedAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function GapsTab() {
  const list = usePaged((before) => api<Page<Gap>>('GET', `/knowledge/gaps${query({ limit: 50, before })}`));
  if (!list.items) return <Loading error={list.error} />;
  return (
    <>
      <p class="muted">When a bot searched its knowledge and found nothing close enough, the question lands here. Add a source or a text answer for the common ones.</p>
      {list.items.length === 0 ? (
        <EmptyState title="No unanswered questions">Every question visitors asked so far was found in the knowledge. Check back after more conversations.</EmptyState>
      ) : <GapsTable items={list.items} />}
      <ErrorText error={list.error} />
      {list.hasMore && <button type="button" class="secondary" onClick={list.more}>Older questions</button>}
    </>
  );
}
