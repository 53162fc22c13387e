import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld } from './helpers.js';

const startedEvents = async (w: Awaited<ReturnType<typeof startChatWorld>>) =>
  (await w.server.app.store.collection<any>('events').find({ type: 'conversation.started' }, { crossWorkspace: true })).map((e) => e.data.conversationId);

test('every conversation starts once, whatever opens it: a message, a lead form, a handoff request; analytics agree with the list', async () => {
  const w = await startChatWorld({ config: { behavior: { leadCapture: { enabled: true, when: 'start' }, handoff: { enabled: true } } } });
  try {
    // Opened by the lead form at start, then a message.
    const a = await w.visitor();
    await a.next('lead_form');
    a.send({ t: 'lead', fields: { name: 'Ada', email: 'ada@example.com' } });
    const ca = (await a.next('conversation')).conversationId;
    await a.next('lead_ok');
    a.say('hello');
    await a.reply();
    // Opened by a handoff request.
    const b = await w.visitor();
    b.send({ t: 'handoff' });
    const cb = (await b.next('conversation')).conversationId;
    await b.next('handoff');
    // A message before the form at start is refused and opens nothing (issue 23: the form is enforced); the
    // conversation then starts once, when the form is answered, and the message goes through.
    const c = await w.visitor();
    await c.next('lead_form');
    c.say('hi');
    assert.is((await c.next('error')).code, 'forbidden');
    c.send({ t: 'lead', fields: { name: 'Cy', email: 'cy@example.com' } });
    const cc = (await c.next('conversation')).conversationId;
    await c.next('lead_ok');
    c.say('hi');
    await c.reply();

    const started = await startedEvents(w);
    assert.equal(started.sort(), [ca, cb, cc].sort(), 'one conversation.started each, no more');
    const list = await w.server.request('GET', '/api/v1/conversations', { headers: w.owner.headers });
    const summary = await w.server.request('GET', '/api/v1/analytics/summary', { headers: w.owner.headers });
    assert.is(summary.status, 200);
    assert.is(summary.body.conversations, list.body.items.length);
    await a.close(); await b.close(); await c.close();
  } finally {
    await w.close();
  }
});

test.run();
