import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PING_MESSAGE } from '../../src/events/webhooks/index.js';
import { harness, publish, WS, type Harness } from './helpers.js';
import { until } from '../helpers/until.js';

async function withEndpoint(events = ['conversation.started', 'message.created']) {
  const h = await harness();
  const created = await h.hooks.endpoints.add(WS, { url: h.receiver.url, events });
  return { h, created };
}

const body = (h: Harness, i = 0) => JSON.parse(h.receiver.seen[i].body);

test('an event is posted with the exact headers and a signature the secret verifies', async () => {
  const { h, created } = await withEndpoint();
  try {
    const event = await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    assert.is(h.receiver.seen.length, 1);
    const seen = h.receiver.seen[0];
    assert.is(seen.method, 'POST');
    assert.is(seen.url, '/hook');
    assert.is(seen.headers['content-type'], 'application/json');
    assert.is(seen.headers['user-agent'], 'ServiceChat-Webhooks/1');
    assert.is(seen.headers['service-event'], 'conversation.started');
    assert.is(seen.headers['service-event-id'], event._id);
    const t = Math.floor(h.clock.now() / 1000);
    const v1 = createHmac('sha256', created.secret).update(`${t}.${seen.body}`).digest('hex');
    assert.is(seen.headers['service-signature'], `t=${t},v1=${v1}`);
    assert.equal(body(h), {
      id: event._id, type: 'conversation.started', createdAt: new Date(h.clock.now()).toISOString(),
      data: { botId: 'bot_1', conversationId: 'conv_1', visitorId: 'vis_1', workspaceId: WS },
    });
    assert.match(body(h).createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [d] = (await h.hooks.endpoints.deliveries(WS, created.id)).items;
    assert.is(d.state, 'delivered');
    assert.is(d.statusCode, 200);
    assert.is(d.response, 'ok');
    assert.is(d.attempts, 1);
  } finally { await h.close(); }
});

test('only subscribed events of the same workspace are delivered', async () => {
  const { h } = await withEndpoint(['lead.captured']);
  try {
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.server.app.events.publish('ws_other', 'lead.captured', { leadId: 'lead_1' });
    h.server.app.events.publishVolatile(WS, 'lead.captured', { leadId: 'lead_2' });
    await publish(h, 'lead.captured', { leadId: 'lead_3', fields: { email: 'a@example.com' } });
    await h.settle();
    assert.is(h.receiver.seen.length, 1);
    assert.is(body(h).data.leadId, 'lead_3');
  } finally { await h.close(); }
});

test('internal notes are never delivered, messages the visitor sees are', async () => {
  const { h } = await withEndpoint(['message.created']);
  try {
    const message = { id: 'msg_1', seq: 1, role: 'human_agent', text: 'note', modality: 'text', createdAt: 1, authorName: 'Ann', attachments: [] };
    await publish(h, 'message.created', { message: { ...message, visibility: 'internal' } });
    await publish(h, 'message.created', { message: { ...message, id: 'msg_2', text: 'hello', visibility: 'public' } });
    await h.settle();
    assert.is(h.receiver.seen.length, 1);
    assert.is(body(h).data.message.id, 'msg_2');
  } finally { await h.close(); }
});

test('a test ping is stored as an event and delivered with a fixed message', async () => {
  const { h, created } = await withEndpoint();
  try {
    const { eventId } = await h.hooks.endpoints.sendTest(WS, created.id);
    await h.settle();
    assert.is(h.receiver.seen.length, 1);
    assert.equal(body(h), { id: eventId, type: 'ping', createdAt: new Date(h.clock.now()).toISOString(), data: { workspaceId: WS, message: PING_MESSAGE } });
    assert.is(h.receiver.seen[0].headers['service-event'], 'ping');
    assert.ok(await h.server.app.events.collection.findById(WS, eventId), 'the ping is in the events store');
  } finally { await h.close(); }
});

test('a redelivery sends the same event id and body again at once', async () => {
  const { h, created } = await withEndpoint();
  try {
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    const [first] = (await h.hooks.endpoints.deliveries(WS, created.id)).items;
    await h.clock.advance(90_000);
    const again = await h.hooks.endpoints.redeliver(WS, first.id);
    await h.settle();
    assert.is(h.receiver.seen.length, 2);
    assert.is(h.receiver.seen[1].body, h.receiver.seen[0].body);
    assert.is(h.receiver.seen[1].headers['service-event-id'], first.eventId);
    assert.is.not(h.receiver.seen[1].headers['service-signature'], h.receiver.seen[0].headers['service-signature'], 'a fresh timestamp');
    const log = (await h.hooks.endpoints.deliveries(WS, created.id)).items;
    assert.is(log.length, 2);
    assert.is(log[0].id, again.id);
    assert.is(log[0].redeliveryOf, first.id);
    assert.is(log[0].state, 'delivered');
  } finally { await h.close(); }
});

test('the delivery log keeps the last 100 deliveries with the start of each answer', async () => {
  const { h, created } = await withEndpoint();
  h.receiver.handle = (_req, res) => { res.writeHead(200).end('x'.repeat(5000)); };
  try {
    const events = [];
    for (let i = 0; i < 105; i++) events.push(await publish(h, 'conversation.started', { visitorId: `vis_${i}` }));
    await h.settle();
    assert.is(h.receiver.seen.length, 105);
    const { items: deliveries, nextBefore } = await h.hooks.endpoints.deliveries(WS, created.id);
    assert.is(deliveries.length, 100);
    assert.is(nextBefore, null);
    assert.is(deliveries[0].eventId, events[104]._id, 'newest first');
    assert.is(deliveries[99].eventId, events[5]._id);
    assert.is(deliveries[0].response?.length, 1024);
    assert.is(await h.hooks.dispatcher.deliveries.count({ workspaceId: WS, endpointId: created.id }), 100);
  } finally { await h.close(); }
});

test('a receiver slower than 10 seconds counts as a failure and is retried', async () => {
  const { h, created } = await withEndpoint();
  h.receiver.handle = () => { /* never answers */ };
  try {
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await until(() => h.receiver.seen.length > 0, { interval: 5, message: 'the first try reaching the receiver' });
    await h.clock.advance(10_000);
    await h.settle();
    const [d] = (await h.hooks.endpoints.deliveries(WS, created.id)).items;
    assert.is(d.state, 'retrying');
    assert.is(d.statusCode, null);
    assert.match(d.error ?? '', /longer than 10000 ms/);
    assert.is(d.nextAttemptAt, h.clock.now() + 60_000);
  } finally { await h.close(); }
});

test.run();
