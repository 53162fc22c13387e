/** #/leads: captured leads, newest first, and the CSV download of all of them. */
import { api, query } from '../api.js';
import { usePaged } from '../paging.js';
import type { Lead, Page } from '../types.js';
import { ErrorText, Loading, when } from '../ui.js';

export function LeadsPage() {
  const list = usePaged((before) => api<Page<Lead>>('GET', `/leads${query({ limit: 50, before })}`));
  return (
    <section>
      <h1>Leads</h1>
      <p><a class="button secondary" href="/api/v1/leads.csv" download="leads.csv">Download CSV</a></p>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <p class="muted">No leads yet.</p> : (
        <table class="list leads">
          <thead><tr><th>Captured</th><th>Details</th><th>Status</th><th>Source</th><th>Conversation</th></tr></thead>
          <tbody>
            {list.items.map((l) => (
              <tr key={l.id}>
                <td>{when(l.createdAt)}</td>
                <td>{Object.entries(l.fields).map(([k, v]) => <div key={k}><small class="muted">{k}</small> {v}</div>)}</td>
                <td>{l.status}</td>
                <td>{l.source}</td>
                <td>{l.conversationId ? <a href={`#/conversations/${l.conversationId}`}>open</a> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.items && <ErrorText error={list.error} />}
      {list.hasMore && <button type="button" class="secondary" onClick={list.more}>Older leads</button>}
    </section>
  );
}

export default LeadsPage;
