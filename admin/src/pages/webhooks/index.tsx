/** #/webhooks: endpoints that receive the workspace's events; #/webhooks/<id>: one endpoint and its delivery log. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { EmptyState, PageHeader } from '../../ui/layout.js';
import { Form, FormErrors, Loading, TextField, useAction, useLoad } from '../../ui.js';
import { Pill } from '../kit/kit.js';
import { EndpointPage } from './endpoint.js';
import { EventChecks } from './events.js';
import { SecretOnce } from './secret-once.js';
import type { Endpoint } from './types.js';

export default function WebhooksArea({ rest }: { rest: string[] }) {
  return <section class="k-area webhooks">{rest[0] ? <EndpointPage id={rest[0]} /> : <WebhooksList />}</section>;
}

function WebhooksList() {
  const list = useLoad(() => api<{ items: Endpoint[]; events: string[] }>('GET', '/webhooks'));
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  // The form is open while there is no endpoint; otherwise behind a button, so the list comes first.
  const [adding, setAdding] = useState<boolean | null>(null);
  const open = adding ?? list.data?.items.length === 0;
  return (
    <>
      <PageHeader title="Webhooks" description="Send the workspace's events (conversations, messages, leads, handoffs, feedback) to your own HTTPS endpoint as signed POST requests." />
      {!list.data ? <Loading error={list.error} /> : (
        <>
          {created && <SecretOnce secret={created.secret} onDone={() => setCreated(null)} />}
          {open ? <AddEndpoint events={list.data.events} onAdded={(e) => { setCreated(e); setAdding(false); list.reload(); }} onCancel={list.data.items.length ? () => setAdding(false) : undefined} />
            : <p><button type="button" onClick={() => setAdding(true)}>Add an endpoint</button></p>}
          {list.data.items.length === 0 ? (
            <EmptyState title="No endpoints yet">Add the URL of your receiver with the form above and choose its events. Then send a test ping and watch it arrive in the delivery log.</EmptyState>
          ) : (
            <div class="rows endpoints">
              {list.data.items.map((e) => (
                <article key={e.id} class="row-card endpoint">
                  <div class="row-head">
                    <h2 class="grow" style={{ wordBreak: 'break-all' }}><a href={`#/webhooks/${encodeURIComponent(e.id)}`}>{e.url}</a></h2>
                    {e.active ? <Pill tone="good">Active</Pill> : <Pill tone="bad">{e.disabledAt ? 'Switched off after failures' : 'Off'}</Pill>}
                  </div>
                  <p class="row-meta"><span>{e.events.join(', ')}</span>{e.consecutiveFailures > 0 && <span class="error">{e.consecutiveFailures} failures in a row</span>}</p>
                  <div class="row-actions"><a class="button secondary small" href={`#/webhooks/${encodeURIComponent(e.id)}`}>Deliveries and settings</a></div>
                </article>
              ))}
            </div>
          )}
        </>
      )}
    </>
  );
}

function AddEndpoint({ events, onAdded, onCancel }: { events: string[]; onAdded: (e: { id: string; secret: string }) => void; onCancel?: () => void }) {
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>(events.filter((e) => e !== 'ping'));
  const act = useAction();
  const submit = () => act.run(async () => {
    const r = await api<Endpoint & { secret: string }>('POST', '/webhooks', { url: url.trim(), events: chosen });
    setUrl('');
    onAdded({ id: r.id, secret: r.secret });
  });
  return (
    <Form onSubmit={submit} class="card add-webhook" name="add-webhook">
      <h2>Add an endpoint</h2>
      <TextField label="Endpoint URL (https)" name="url" type="url" value={url} onInput={setUrl} required errors={act.fields} />
      <EventChecks all={events} chosen={chosen} onChange={setChosen} />
      <div class="row-actions">
        <button type="submit" disabled={act.busy}>Add endpoint</button>
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
      <FormErrors act={act} shown={['url']} />
    </Form>
  );
}
