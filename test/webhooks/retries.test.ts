import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { harness, publish, WS } from './helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

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

const SCHEDULE = [0, MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 6 * HOUR, 24 * HOUR];

/** Three failing events 10 s apart (the endpoint then holds its later events behind their retries). */
async function threeFailures(h: Awaited<ReturnType<typeof harness>>) {
  const events = [];
  for (let i = 0; i < 3; i++) {
    if (i) await h.advance(10_000);
    events.push(await publish(h, 'conversation.started', { visitorId: `vis_${i}` }));
    await h.settle();
  }
  return events;
}

/** When each of the three deliveries' seven tries is due, in order, relative to the first event. */
function tryTimes(): number[] {
  const times: number[] = [];
  for (let k = 0; k < 3; k++) {
    let at = k * 10_000;
    for (const delay of SCHEDULE) times.push(at += delay);
  }
  return times.sort((a, b) => a - b);
}

test('failures are counted per try on the retry schedule: 19 leave the endpoint on, the 20th switches it off', async () => {
  const { h, id } = await failingEndpoint();
  try {
    const start = h.clock.now();
    await threeFailures(h);
    assert.is((await h.hooks.endpoints.get(WS, id)).consecutiveFailures, 3);
    // A fourth event waits behind the retries instead of adding a failure of its own.
    const waiting = await publish(h, 'conversation.started', { visitorId: 'vis_3' });
    await h.settle();
    assert.is(h.receiver.seen.length, 3);
    const times = tryTimes();
    for (let i = 3; i < 20; i++) {
      await h.advance(start + times[i] - h.clock.now());
      const ep = await h.hooks.endpoints.get(WS, id);
      assert.is(ep.consecutiveFailures, i + 1, `try ${i + 1} at +${(times[i] / 1000).toFixed(0)}s`);
      assert.is(ep.active, i + 1 < 20, `on after ${i + 1} failures`);
      if (!ep.active) assert.is(ep.disabledAt, h.clock.now());
    }
    assert.is(h.receiver.seen.length, 20, 'each failure is a try the receiver got');
    // Switched off: nothing more is sent, and nothing is given up untried.
    await publish(h, 'conversation.started', { visitorId: 'vis_4' });
    await h.advance(2 * DAY);
    assert.is(h.receiver.seen.length, 20);
    const log = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(log.length, 5);
    assert.equal(log.map((d) => [d.state, d.attempts]), [['queued', 0], ['queued', 0], ['retrying', 6], ['failed', 7], ['failed', 7]]);
    assert.ok(log.filter((d) => d.state !== 'failed').every((d) => d.nextAttemptAt === null), 'the rest wait for the endpoint');
    assert.is(log[1].eventId, waiting._id);
  } finally { await h.close(); }
});

test('a retry that gets through resets the failure count and sends what waited behind it', async () => {
  const { h, id } = await failingEndpoint();
  try {
    await threeFailures(h);
    const waiting = await publish(h, 'conversation.started', { visitorId: 'vis_3' });
    await h.settle();
    assert.is((await h.hooks.endpoints.get(WS, id)).consecutiveFailures, 3);
    assert.is(h.receiver.seen.length, 3, 'the fourth event waits');
    h.receiver.handle = (_req, res) => { res.writeHead(200).end(); };
    await h.advance(MIN);
    assert.is((await h.hooks.endpoints.get(WS, id)).consecutiveFailures, 0);
    await h.advance(30_000);
    assert.ok(h.receiver.seen.some((s) => s.headers['service-event-id'] === waiting._id), 'the waiting event is sent');
    const log = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.ok(log.every((d) => d.state === 'delivered'));
  } finally { await h.close(); }
});

test('switching a switched-off endpoint back on resets the count and sends what it missed, then new events', async () => {
  const { h, id } = await failingEndpoint();
  try {
    await threeFailures(h);
    for (const delay of SCHEDULE.slice(1)) {
      await h.advance(delay);
      if (!(await h.hooks.endpoints.get(WS, id)).active) break;
    }
    assert.is((await h.hooks.endpoints.get(WS, id)).active, false);
    const missed = await publish(h, 'conversation.started', { visitorId: 'vis_missed' });
    await h.settle();
    h.receiver.handle = (_req, res) => { res.writeHead(200).end(); };
    const on = await h.hooks.endpoints.update(WS, id, { active: true });
    assert.is(on.active, true);
    assert.is(on.consecutiveFailures, 0);
    assert.is(on.disabledAt, null);
    await h.settle();
    assert.ok(h.receiver.seen.some((s) => s.headers['service-event-id'] === missed._id), 'the missed event is sent');
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
