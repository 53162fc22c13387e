import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { harness, publish, WS } from './helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

async function failingEndpoint() {
  const h = await harness();
  h.receiver.handle = (_req, res) => { res.writeHead(500).end('broken'); };
  const created = await h.hooks.endpoints.add(WS, { url: h.receiver.url, events: ['conversation.started'] });
  return { h, id: created.id };
}

test('a failing delivery is tried at +1m, +5m, +30m, +2h, +6h and +24h, then given up after seven tries', async () => {
  const { h, id } = await failingEndpoint();
  try {
    const event = await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    assert.is(h.receiver.seen.length, 1, 'first try at once');
    for (const [i, delay] of [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 6 * HOUR, 24 * HOUR].entries()) {
      await h.advance(delay - 1);
      assert.is(h.receiver.seen.length, i + 1, `no try before +${delay / 1000}s`);
      await h.advance(1);
      assert.is(h.receiver.seen.length, i + 2, `try ${i + 2} at +${delay / 1000}s`);
    }
    await h.advance(72 * HOUR);
    assert.is(h.receiver.seen.length, 7, 'no eighth try');
    assert.ok(h.receiver.seen.every((s) => s.headers['service-event-id'] === event._id), 'same event id on every try');
    assert.ok(h.receiver.seen.every((s) => s.body === h.receiver.seen[0].body), 'same body on every try');
    const [d] = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(d.state, 'failed');
    assert.is(d.attempts, 7);
    assert.is(d.statusCode, 500);
    assert.is(d.response, 'broken');
    assert.is(d.nextAttemptAt, null);
    assert.is(d.history.length, 7);
  } finally { await h.close(); }
});

test('a retry that succeeds ends the series as delivered', async () => {
  const { h, id } = await failingEndpoint();
  try {
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    h.receiver.handle = (_req, res) => { res.writeHead(204).end(); };
    await h.advance(MIN);
    await h.advance(48 * HOUR);
    assert.is(h.receiver.seen.length, 2);
    const [d] = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(d.state, 'delivered');
    assert.is(d.attempts, 2);
    assert.is(d.statusCode, 204);
  } finally { await h.close(); }
});

test('19 failures in a row leave the endpoint on; the 20th switches it off', async () => {
  const { h, id } = await failingEndpoint();
  try {
    for (let i = 0; i < 19; i++) await publish(h, 'conversation.started', { visitorId: `vis_${i}` });
    await h.settle();
    let ep = await h.hooks.endpoints.get(WS, id);
    assert.is(ep.consecutiveFailures, 19);
    assert.is(ep.active, true);
    await publish(h, 'conversation.started', { visitorId: 'vis_19' });
    await h.settle();
    ep = await h.hooks.endpoints.get(WS, id);
    assert.is(ep.consecutiveFailures, 20);
    assert.is(ep.active, false);
    assert.is(ep.disabledAt, h.clock.now());
    // Switched off: no new deliveries, and pending retries are not sent.
    await publish(h, 'conversation.started', { visitorId: 'vis_20' });
    await h.advance(MIN);
    assert.is(h.receiver.seen.length, 20);
    const log = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(log.length, 20);
    assert.ok(log.every((d) => d.state === 'failed'));
  } finally { await h.close(); }
});

test('a success resets the failure count', async () => {
  const { h, id } = await failingEndpoint();
  try {
    for (let i = 0; i < 15; i++) await publish(h, 'conversation.started', { visitorId: `vis_${i}` });
    await h.settle();
    assert.is((await h.hooks.endpoints.get(WS, id)).consecutiveFailures, 15);
    h.receiver.handle = (_req, res) => { res.writeHead(200).end(); };
    await publish(h, 'conversation.started', { visitorId: 'vis_ok' });
    await h.settle();
    assert.is((await h.hooks.endpoints.get(WS, id)).consecutiveFailures, 0);
  } finally { await h.close(); }
});

test('switching a switched-off endpoint back on resets the count and it receives events again', async () => {
  const { h, id } = await failingEndpoint();
  try {
    for (let i = 0; i < 20; i++) await publish(h, 'conversation.started', { visitorId: `vis_${i}` });
    await h.settle();
    assert.is((await h.hooks.endpoints.get(WS, id)).active, false);
    h.receiver.handle = (_req, res) => { res.writeHead(200).end(); };
    const on = await h.hooks.endpoints.update(WS, id, { active: true });
    assert.is(on.active, true);
    assert.is(on.consecutiveFailures, 0);
    assert.is(on.disabledAt, null);
    const event = await publish(h, 'conversation.started', { visitorId: 'vis_back' });
    await h.settle();
    assert.is(h.receiver.seen.at(-1)?.headers['service-event-id'], event._id);
  } finally { await h.close(); }
});

test('a connection error is a failure with a readable reason', async () => {
  const { h, id } = await failingEndpoint();
  try {
    const closedPort = new URL(h.receiver.url);
    await h.receiver.close();
    await h.hooks.endpoints.update(WS, id, { url: closedPort.href });
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    const [d] = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(d.state, 'retrying');
    assert.is(d.statusCode, null);
    assert.match(d.error ?? '', /refused/);
  } finally { await h.close(); }
});

test.run();
