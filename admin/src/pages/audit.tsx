/** #/audit: who did what in the workspace (GET /audit), newest first, 50 at a time; admins only. */
import { api, query } from '../api.js';
import { usePaged } from '../paging.js';
import type { Page } from '../types.js';
import { EmptyState, ErrorText, Loading, PageHeader, RelativeTime } from '../ui.js';

interface Entry { id: string; at: number; actor: { kind: 'user' | 'token' | 'system'; id: string; name: string }; action: string; target: { type: string; id: string } | null; detail?: Record<string, unknown> }

/** Where a target lives in the panel, when it has a page. */
const linkOf = (t: Entry['target']): string | null => {
  if (!t) return null;
  if (t.type === 'bot') return `#/bots/${t.id}`;
  if (t.type === 'conversation') return `#/inbox/${t.id}`;
  return null;
};

export default function AuditPage() {
  const list = usePaged((before) => api<Page<Entry>>('GET', `/audit${query({ limit: 50, before })}`));
  return (
    <section>
      <PageHeader title="Audit log" description="Who changed what, newest first: sign-ins and settings, bots, team, tokens, conversations taken over. Messages' words are never logged." />
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? (
        <EmptyState title="Nothing logged yet">Changes people and API tokens make appear here: publishing a bot, inviting someone, creating a token.</EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="list audit">
            <thead><tr><th>When</th><th>Who</th><th>Action</th><th>On</th><th>Details</th></tr></thead>
            <tbody>
              {list.items.map((e) => {
                const href = linkOf(e.target);
                return (
                  <tr key={e.id}>
                    <td><RelativeTime ms={e.at} /></td>
                    <td>{e.actor.name} {e.actor.kind !== 'user' && <span class="badge">{e.actor.kind}</span>}</td>
                    <td><code>{e.action}</code></td>
                    <td>{e.target ? (href ? <a href={href}>{e.target.type} <code>{e.target.id}</code></a> : <>{e.target.type} <code>{e.target.id}</code></>) : '—'}</td>
                    <td class="audit-detail">{e.detail ? Object.entries(e.detail).map(([k, v]) => <div key={k}><small class="muted">{k}</small> {typeof v === 'string' ? v : JSON.stringify(v)}</div>) : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {list.items && <ErrorText error={list.error} />}
      {list.hasMore && <button type="button" class="secondary" onClick={list.more}>Older entries</button>}
    </section>
  );
}
