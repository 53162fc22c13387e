/**
 * Receiver outages (issue 40, item 1): a receiver that goes away for a moment during a burst gets every event once
 * it is back; failures are counted per real try on the retry schedule, so only a receiver that stays down is
 * switched off; switching an endpoint back on sends what it missed within the week events are kept.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeliveryRecord } from '../../src/events/webhooks/index.js';
import { harness, publish, WS, type Harness } from './helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/**
 * A receiver on a fixed loopback port that can go away (new connections refused, requests on open ones cut
 * without an answer) and come back. `accepted` lists the event ids it answered 200 to, in order.
 */
async function outageReceiver() {
  let server: http.Server | null = null;
  let port = 0;
  const r = {
    accepted: [] as string[],
    up: false,
    /** Called after each accepted request (the test takes the receiver down from here). */
    onAccept: (_count: number) => undefined as void,
    url: '',
    async start() {
      const s = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          if (!r.up) { req.socket.destroy(); return; }
          r.accepted.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).id);
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
          r.onAccept(r.accepted.length);
        });
      });
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
      port = (s.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${port}/hook`;
      server = s;
      r.up = true;
    },
    /** Goes away: no new connection is accepted and open ones answer nothing. */
    stop() {
      r.up = false;
      const s = server;
      server = null;
      if (!s) return Promise.resolve();
      return new Promise<void>((resolve) => { s.close(() => resolve()); s.closeIdleConnections(); });
    },
    async close() { await r.stop(); },
  };
  await r.start();
  return r;
}

const counts = (ids: string[]) => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());

async function deliveriesOf(h: Harness, endpointId: string): Promise<DeliveryRecord[]> {
  return h.hooks.dispatcher.deliveries.find({ workspaceId: WS, endpointId }, { limit: 100_000 });
}

test('a receiver that goes away during a burst of 300 events gets each of them once when it is back; the endpoint stays on', async () => {
  const h = await harness();
  const receiver = await outageReceiver();
  try {
    const ep = await h.hooks.endpoints.add(WS, { url: receiver.url, events: ['lead.captured'] });
    // The receiver goes away after its 40th event, while the burst is still being published.
    receiver.onAccept = (n) => { if (n === 40) void receiver.stop(); };
    const events = [];
    for (let i = 0; i < 300; i += 10) {
      events.push(...await Promise.all(Array.from({ length: 10 }, (_, j) => publish(h, 'lead.captured', { leadId: `lead_${i + j}`, fields: { email: `v${i + j}@example.com` } }))));
    }
    await h.settle();
    assert.ok(!receiver.up, 'the receiver went away during the burst');
    const during = await h.hooks.endpoints.get(WS, ep.id);
    const records = await deliveriesOf(h, ep.id);
    const failedTries = records.reduce((n, d) => n + d.history.filter((a) => a.error).length, 0);
    console.log(`outage: ${receiver.accepted.length} accepted before it, ${failedTries} failed tries, failure count ${during.consecutiveFailures}`);
    assert.is(during.active, true, 'a moment of outage does not switch the endpoint off');
    assert.ok(during.consecutiveFailures < 10, `failures counted per real try (${during.consecutiveFailures})`);
    assert.is(during.consecutiveFailures, failedTries, 'every counted failure is a try that was made');
    assert.equal(records.filter((d) => d.state === 'failed').map((d) => d.error), [], 'nothing is given up');
    // The log keeps the newest 100 finished deliveries: every event is either received or still pending.
    const pending = new Set(records.filter((d) => d.state === 'queued' || d.state === 'retrying').map((d) => d.eventId));
    const received = new Set(receiver.accepted);
    assert.ok(events.every((e) => received.has(e._id) !== pending.has(e._id)), 'every event is received or waits in a delivery record');
    assert.is(pending.size, 300 - received.size);
    // Back after the outage; the first retry is due a minute later (the test clock).
    await receiver.start();
    await h.advance(MIN);
    await h.advance(MIN);
    const seen = counts(receiver.accepted);
    assert.is(seen.size, 300, `every event arrived (${seen.size} of 300)`);
    assert.ok(events.every((e) => seen.get(e._id) === 1), 'each exactly once');
    const after = await h.hooks.endpoints.get(WS, ep.id);
    assert.is(after.active, true);
    assert.is(after.consecutiveFailures, 0);
    const log = await deliveriesOf(h, ep.id);
    assert.ok(log.length > 0 && log.every((d) => d.state === 'delivered'), 'the log shows them delivered');
  } finally { await h.close(); await receiver.close(); }
});

test('an endpoint that stays down is switched off only after 20 tries on the retry schedule, and gets what it missed in the week when switched back on', async () => {
  const h = await harness();
  const receiver = await outageReceiver();
  try {
    const ep = await h.hooks.endpoints.add(WS, { url: receiver.url, events: ['lead.captured'] });
    await receiver.stop();
    const events = [];
    for (let i = 0; i < 50; i++) events.push(await publish(h, 'lead.captured', { leadId: `lead_${i}`, fields: {} }));
    await h.settle();
    let state = await h.hooks.endpoints.get(WS, ep.id);
    assert.is(state.active, true, 'still on after the first tries');
    assert.ok(state.consecutiveFailures < 10, `the burst counted ${state.consecutiveFailures} failures`);
    // The retries follow the schedule; the endpoint goes off at the 20th failed try, not before +36 min.
    let offAfter = 0;
    for (const step of [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 6 * HOUR, 24 * HOUR, 24 * HOUR]) {
      await h.advance(step);
      offAfter += step;
      state = await h.hooks.endpoints.get(WS, ep.id);
      if (!state.active) break;
    }
    assert.is(state.active, false, 'switched off in the end');
    assert.ok(offAfter >= 36 * MIN, `not before +36 min (off after ${offAfter / MIN} min)`);
    const records = await deliveriesOf(h, ep.id);
    const tries = records.reduce((n, d) => n + d.attempts, 0);
    console.log(`down receiver: off after ${offAfter / MIN} min, ${state.consecutiveFailures} failures, ${tries} tries, ${records.filter((d) => d.attempts > 0).length} deliveries tried`);
    assert.ok(state.consecutiveFailures >= 20, 'at least 20 failures in a row');
    assert.is(tries, state.consecutiveFailures, 'each failure counted is a try that was made');
    assert.is(records.length, 50);
    assert.equal(records.filter((d) => d.state === 'failed').length, 0, 'switching off gives nothing up');
    // Switched off: new events still get a delivery record, and nothing is sent.
    await h.advance(2 * DAY);
    for (let i = 50; i < 60; i++) events.push(await publish(h, 'lead.captured', { leadId: `lead_${i}`, fields: {} }));
    await h.settle();
    assert.is((await deliveriesOf(h, ep.id)).length, 60, 'events of a switched-off endpoint are kept for it');
    await receiver.start();
    await h.advance(HOUR);
    assert.is(receiver.accepted.length, 0, 'nothing is sent while it is off');
    const on = await h.hooks.endpoints.update(WS, ep.id, { active: true });
    assert.is(on.consecutiveFailures, 0);
    await h.settle();
    const seen = counts(receiver.accepted);
    assert.is(seen.size, 60, `every missed event arrived (${seen.size} of 60)`);
    assert.ok(events.every((e) => seen.get(e._id) === 1), 'each exactly once');
  } finally { await h.close(); await receiver.close(); }
});

test('switched on after more than a week, an endpoint gets the events of the last week only', async () => {
  const h = await harness();
  const receiver = await outageReceiver();
  try {
    const ep = await h.hooks.endpoints.add(WS, { url: receiver.url, events: ['lead.captured'] });
    await h.hooks.endpoints.update(WS, ep.id, { active: false });
    const old = await publish(h, 'lead.captured', { leadId: 'lead_old', fields: {} });
    await h.advance(5 * DAY);
    const recent = await publish(h, 'lead.captured', { leadId: 'lead_recent', fields: {} });
    await h.advance(3 * DAY);
    await h.hooks.endpoints.update(WS, ep.id, { active: true });
    await h.settle();
    assert.equal(receiver.accepted, [recent._id], 'the 8-day-old event is no longer kept; the 3-day-old one is sent');
    const [oldDelivery] = (await deliveriesOf(h, ep.id)).filter((d) => d.eventId === old._id);
    assert.is(oldDelivery.state, 'failed');
    assert.match(oldDelivery.error ?? '', /switched off for more than the week/);
  } finally { await h.close(); await receiver.close(); }
});

test.run();
