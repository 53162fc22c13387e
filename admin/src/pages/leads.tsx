/**
 * #/leads: captured leads, newest first, filtered by status and bot; agents change a lead's status, admins delete
 * one (after a confirmation); the CSV download follows the same filters; agents add a lead by hand (add-lead.tsx).
 */
import { useState } from 'preact/hooks';
import { api, query } from '../api.js';
import { usePaged } from '../paging.js';
import { useSession } from '../session.js';
import type { BotSummary, Lead, Page } from '../types.js';
import { confirmDialog, EmptyState, ErrorText, Loading, PageHeader, RelativeTime, toast, useAction, useLoad } from '../ui.js';
import { AddLead } from './add-lead.js';

const STATUSES = ['new', 'contacted', 'qualified', 'won', 'lost'] as const;
const SOURCE: Record<string, string> = { tool: 'the AI asked', form: 'lead form', api: 'API' };

export function LeadsPage() {
  const { atLeast } = useSession();
  const [status, setStatus] = useState('');
  const [botId, setBotId] = useState('');
  const bots = useLoad(() => api<Page<BotSummary>>('GET', `/bots${query({ limit: 100 })}`));
  const list = usePaged((before) => api<Page<Lead>>('GET', `/leads${query({ limit: 50, before, status, botId })}`), [status, botId]);
  const [items, setItems] = useState<Record<string, Lead>>({});
  const act = useAction();
  const [adding, setAdding] = useState(false);
  const botName = (id: string) => bots.data?.items.find((b) => b.id === id)?.name ?? id;
  const change = (l: Lead, to: string) => act.run(async () => {
    const updated = await api<Lead>('PATCH', `/leads/${encodeURIComponent(l.id)}`, { status: to });
    setItems((old) => ({ ...old, [l.id]: updated }));
    toast(`Lead marked ${to}`);
  });
  const remove = async (l: Lead) => {
    const who = l.fields.name || l.fields.email || 'this lead';
    if (!(await confirmDialog({ title: `Delete ${who}?`, message: 'The lead is deleted for good; the conversation stays.', confirmText: 'Delete lead', danger: true }))) return;
    if (await act.run(() => api('DELETE', `/leads/${encodeURIComponent(l.id)}`))) { toast('Lead deleted'); list.reload(); }
  };
  const csv = `/api/v1/leads.csv${query({ status, botId })}`;
  return (
    <section>
      <PageHeader title="Leads" description="Contact details visitors left with your bots, newest first."
        actions={<>
          {atLeast('agent') && (bots.data?.items.length ?? 0) > 0 && <button type="button" onClick={() => setAdding(true)}>Add lead</button>}
          <a class="button secondary" href={csv} download="leads.csv">Download CSV</a>
        </>} />
      {adding && bots.data && <AddLead bots={bots.data.items} onClose={() => setAdding(false)} onAdded={() => { setAdding(false); list.reload(); }} />}
      <div class="row filters">
        <label class="field inline"><span>Status</span>
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any status</option>{STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        {(bots.data?.items.length ?? 0) > 1 && (
          <label class="field inline"><span>Bot</span>
            <select name="bot" value={botId} onChange={(e) => setBotId(e.currentTarget.value)}>
              <option value="">All bots</option>{bots.data!.items.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
            </select>
          </label>
        )}
      </div>
      <ErrorText error={act.error} />
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? (
        <EmptyState title={status || botId ? 'No leads match' : 'No leads yet'}>
          {status || botId ? 'Try another status or bot.' : 'Turn on lead capture in a bot (Bots → the bot → Behaviour → Lead capture) and leads appear here as visitors leave their details.'}
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="list leads stack">
            <thead><tr><th>Captured</th><th>Details</th><th>Status</th><th>From</th><th>Conversation</th>{atLeast('admin') && <th><span class="visually-hidden">Actions</span></th>}</tr></thead>
            <tbody>
              {list.items.map((orig) => {
                const l = items[orig.id] ?? orig;
                return (
                  <tr key={l.id} data-id={l.id}>
                    <td data-label="Captured"><RelativeTime ms={l.createdAt} /></td>
                    <td data-label="Details">{Object.entries(l.fields).map(([k, v]) => <div key={k}><small class="muted">{k}</small> {v}</div>)}</td>
                    <td data-label="Status">{atLeast('agent') ? (
                      <select name="lead-status" aria-label={`Status of ${l.fields.name || l.fields.email || 'this lead'}`} value={l.status} disabled={act.busy}
                        onChange={(e) => change(l, e.currentTarget.value)}>
                        {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
                      </select>
                    ) : <span class="badge">{l.status}</span>}</td>
                    <td data-label="From">{botName(l.botId)}<br /><small class="muted">{SOURCE[l.source] ?? l.source}</small></td>
                    <td data-label="Conversation">{l.conversationId ? <a href={`#/inbox/${l.conversationId}`}>Open</a> : '—'}</td>
                    {atLeast('admin') && <td><button type="button" class="danger small" disabled={act.busy} onClick={() => remove(l)}>Delete</button></td>}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {list.items && <ErrorText error={list.error} />}
      {list.hasMore && <button type="button" class="secondary" onClick={list.more}>Older leads</button>}
    </section>
  );
}

export default LeadsPage;
