/** The delivery log: each event sent, its state, status code and the start of the answer; redeliver any of them. */
import { useEffect } from 'preact/hooks';
import { api, query } from '../../api.js';
import { usePaged } from '../../paging.js';
import type { Page } from '../../types.js';
import { EmptyState } from '../../ui/layout.js';
import { RelativeTime } from '../../ui/time.js';
import { ErrorText, Loading, useAction } from '../../ui.js';
import { Pill, usePoll } from '../kit/kit.js';
import type { Delivery } from './types.js';

const STATE: Record<Delivery['state'], ['good' | 'bad' | 'busy', string]> = {
  delivered: ['good', 'Delivered'], failed: ['bad', 'Failed'], retrying: ['bad', 'Retrying'], queued: ['busy', 'Queued'],
};

export function Deliveries({ endpointId, refresh }: { endpointId: string; refresh: number }) {
  const list = usePaged((before) => api<Page<Delivery>>('GET', `/webhooks/${encodeURIComponent(endpointId)}/deliveries${query({ limit: 25, before })}`), [endpointId]);
  useEffect(() => { if (refresh) list.reload(); }, [refresh]);
  // Queued deliveries go out within a couple of seconds: look again until they have (not those waiting for the endpoint).
  usePoll(list.reload, 1500, !!list.items?.some((d) => d.state === 'queued' && d.nextAttemptAt !== null));
  const act = useAction();
  const redeliver = (d: Delivery) => act.run(async () => { await api('POST', `/webhooks/deliveries/${encodeURIComponent(d.id)}/redeliver`); list.reload(); });
  return (
    <section class="delivery-log">
      <div class="row-head"><h2 class="grow">Delivery log</h2><button type="button" class="secondary small" onClick={list.reload}>Refresh</button></div>
      <p class="muted">The last 100 deliveries. Failed ones are retried after 1 min, 5 min, 30 min, 2 h, 6 h and 24 h; while the endpoint fails or is off, newer events wait and are sent when it is back. Events are kept a week for redelivery.</p>
      <ErrorText error={act.error} />
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? (
        <EmptyState title="Nothing sent yet">Send a test ping to check your receiver; real events appear here as they happen.</EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="list stack deliveries">
            <thead><tr><th>Event</th><th>State</th><th class="num">Status</th><th>Response</th><th class="num">Tries</th><th>Sent</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.items.map((d) => (
                <tr key={d.id} data-state={d.state}>
                  <td data-label="Event"><code>{d.eventType}</code>{d.redeliveryOf && <div><small class="muted">redelivery</small></div>}</td>
                  <td data-label="State"><Pill tone={STATE[d.state][0]}>{STATE[d.state][1]}</Pill>
                    {d.state === 'retrying' && d.nextAttemptAt && <div><small class="muted">next <RelativeTime ms={d.nextAttemptAt} /></small></div>}
                    {(d.state === 'queued' || d.state === 'retrying') && d.nextAttemptAt === null && <div><small class="muted">waits for the endpoint</small></div>}</td>
                  <td data-label="Status" class="num status-code">{d.statusCode ?? '—'}</td>
                  <td data-label="Response" class="response-start"><code style={{ wordBreak: 'break-all' }}>{(d.response ?? '').slice(0, 160)}</code>{d.error && <div class="error"><small>{d.error}</small></div>}</td>
                  <td data-label="Tries" class="num">{d.attempts}</td>
                  <td data-label="Sent"><RelativeTime ms={d.lastAttemptAt ?? d.createdAt} /></td>
                  <td><button type="button" class="secondary small" disabled={act.busy} onClick={() => redeliver(d)} aria-label={`Redeliver ${d.eventType}`}>Redeliver</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.items && <ErrorText error={list.error} />}
      {list.hasMore && <button type="button" class="secondary" onClick={list.more}>Older deliveries</button>}
    </section>
  );
}
