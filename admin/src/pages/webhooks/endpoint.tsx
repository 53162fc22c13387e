/** One endpoint: its settings, secret rotation, test ping, removal, and the delivery log. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { go } from '../../router.js';
import { PageHeader } from '../../ui/layout.js';
import { ErrorText, Form, FormErrors, Loading, TextField, useAction, useLoad } from '../../ui.js';
import { ConfirmButton, Pill } from '../kit/kit.js';
import { Deliveries } from './deliveries.js';
import { EventChecks } from './events.js';
import { SecretOnce } from './secret-once.js';
import type { Endpoint } from './types.js';

export function EndpointPage({ id }: { id: string }) {
  const data = useLoad(async () => {
    const all = await api<{ items: Endpoint[]; events: string[] }>('GET', '/webhooks');
    const endpoint = all.items.find((e) => e.id === id);
    if (!endpoint) throw new Error('This endpoint no longer exists. It may have been removed.');
    return { endpoint, events: all.events };
  }, [id]);
  const [secret, setSecret] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const [note, setNote] = useState<string | null>(null);
  const act = useAction();
  const back = { href: '#/webhooks', text: 'Webhooks' };
  if (!data.data) return <><PageHeader title="Endpoint" back={back} /><Loading error={data.error} /></>;
  const e = data.data.endpoint;
  const path = `/webhooks/${encodeURIComponent(id)}`;
  const ping = () => act.run(async () => { setNote(null); await api('POST', `${path}/test`); setNote('Ping queued: it shows in the log below within a couple of seconds.'); setTick((t) => t + 1); });
  const rotate = () => act.run(async () => { setSecret((await api<{ secret: string }>('POST', `${path}/secret`)).secret); });
  const remove = () => act.run(async () => { await api('DELETE', path); go('/webhooks'); });
  return (
    <>
      <PageHeader title={<span style={{ wordBreak: 'break-all' }}>{e.url}</span>} back={back}
        description={e.active ? 'Active: events are sent as they happen.' : e.disabledAt ? 'Switched off after 20 failures in a row. Fix the receiver, then switch it on: the events it missed in the last week are sent then.' : 'Off: no events are sent. Switch it on to receive them again, with the ones it missed in the last week.'}
        actions={<>
          <button type="button" onClick={ping} disabled={act.busy}>Send test ping</button>
          <ConfirmButton class="secondary" label="Rotate secret" question="Make a new signing secret? The old one stops working at once." confirm="Rotate" onConfirm={rotate} />
          <ConfirmButton label="Remove" question="Remove this endpoint and its log?" onConfirm={remove} />
        </>} />
      {note && <p class="ok" role="status">{note}</p>}
      <ErrorText error={act.error} />
      {secret && <SecretOnce secret={secret} onDone={() => setSecret(null)} />}
      <EndpointSettings e={e} events={data.data.events} onSaved={(next) => data.setData({ endpoint: next, events: data.data!.events })} />
      <Deliveries endpointId={id} refresh={tick} />
    </>
  );
}

function EndpointSettings({ e, events, onSaved }: { e: Endpoint; events: string[]; onSaved: (e: Endpoint) => void }) {
  const [url, setUrl] = useState(e.url);
  const [chosen, setChosen] = useState(e.events);
  const [saved, setSaved] = useState(false);
  // Open at first when the endpoint is off; after that it stays as the person leaves it.
  const [openAtFirst] = useState(!e.active);
  const act = useAction();
  const patch = (body: Partial<Endpoint>) => act.run(async () => { setSaved(false); onSaved(await api<Endpoint>('PATCH', `/webhooks/${encodeURIComponent(e.id)}`, body)); setSaved(true); });
  return (
    <details class="more card" open={openAtFirst}>
      <summary>Settings {e.active ? <Pill tone="good">Active</Pill> : <Pill tone="bad">Off</Pill>}{e.consecutiveFailures > 0 && <span class="error"> · {e.consecutiveFailures} failures in a row</span>}</summary>
      <Form onSubmit={() => patch({ url: url.trim(), events: chosen })} name="edit-webhook">
        <TextField label="Endpoint URL" name="url" type="url" value={url} onInput={(v) => { setUrl(v); setSaved(false); }} required errors={act.fields} />
        <EventChecks all={events} chosen={chosen} onChange={(c) => { setChosen(c); setSaved(false); }} />
        <div class="row-actions">
          <button type="submit" disabled={act.busy}>Save</button>
          <button type="button" class="secondary" disabled={act.busy} onClick={() => patch({ active: !e.active })}>{e.active ? 'Switch off' : 'Switch on'}</button>
          {saved && <span class="ok" role="status">Saved.</span>}
        </div>
        <FormErrors act={act} shown={['url']} />
      </Form>
    </details>
  );
}
