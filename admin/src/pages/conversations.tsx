/** #/conversations: newest first, 25 at a time (nextBefore pages back). */
import { api, query } from '../api.js';
import { usePaged } from '../paging.js';
import type { ConversationSummary, Page } from '../types.js';
import { ErrorText, Loading, when } from '../ui.js';

export function ConversationsPage() {
  const list = usePaged((before) => api<Page<ConversationSummary>>('GET', `/conversations${query({ limit: 25, before })}`));
  return (
    <section>
      <h1>Conversations</h1>
      <button type="button" class="secondary" onClick={list.reload}>Refresh</button>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <p class="muted">No conversations yet.</p> : (
        <table class="list conversations">
          <thead><tr><th>Started</th><th>Page</th><th>Messages</th><th>Status</th><th>Last message</th></tr></thead>
          <tbody>
            {list.items.map((c) => (
              <tr key={c.id}>
                <td><a href={`#/conversations/${c.id}`}>{when(c.createdAt)}</a></td>
                <td>{c.page.title || c.page.url || '—'}</td>
                <td>{c.messageCount}</td>
                <td>
                  <span class={`badge ${c.status}`}>{c.status === 'ended' ? `ended (${c.endReason ?? ''})` : 'open'}</span>
                  {c.takenOverBy && <small class="muted"> with {c.takenOverBy.userName}</small>}
                </td>
                <td>{when(c.lastMessageAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.items && <ErrorText error={list.error} />}
      {list.hasMore && <button type="button" class="secondary" onClick={list.more}>Older conversations</button>}
    </section>
  );
}
