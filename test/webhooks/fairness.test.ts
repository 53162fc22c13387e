/**
 * Fair delivery slots (issue 40, item 2): a receiver that answers slowly, with a backlog, holds only its share of
 * the slots, so another endpoint's events still go out while the slow one's requests are open. Measured against
 * the slow receiver's own 3 s answers, not the wall clock: a ping queued behind the backlog arrives only after one of
 * them was answered, however busy the machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { harness, publish, startReceiver, WS } from './helpers.js';

const SLOW_MS = 3000;

/** A receiver that answers every request after 3 s (real time), counting requests open at once. */
async function slowReceiver() {
  const timers = new Set<NodeJS.Timeout>();
  const r = { open: 0, maxOpen: 0, received: 0, answered: 0, paths: new Set<string>(), url: '', close: async () => undefined as void };
  const server = http.createServer((req, res) => {
    r.paths.add(req.url ?? '');
    r.open++;
    r.received++;
    r.maxOpen = Math.max(r.maxOpen, r.open);
    req.resume();
    const t = setTimeout(() => { timers.delete(t); r.open--; r.answered++; res.writeHead(200).end('ok'); }, SLOW_MS);
    timers.add(t);
    res.on('close', () => { if (timers.delete(t)) { clearTimeout(t); r.open--; } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () => new Promise<void>((resolve) => { for (const t of timers) clearTimeout(t); server.closeAllConnections(); server.close(() => resolve()); });
  return r;
}

test('a slow endpoint with a backlog leaves slots for another endpoint: its ping arrives before the slow one answers', async () => {
  const h = await harness();
  const slow = await slowReceiver();
  try {
    await h.hooks.endpoints.add(WS, { url: `${slow.url}/a`, events: ['message.created'] });
    const fast = await h.hooks.endpoints.add(WS, { url: h.receiver.url, events: ['lead.captured'] });
    for (let i = 0; i < 40; i++) await publish(h, 'message.created', { message: { id: `msg_${i}`, visibility: 'public' } });
    await until(() => slow.open > 0, { timeout: 5000, message: 'the slow receiver is busy' });
    await h.hooks.endpoints.sendTest(WS, fast.id);
    const sent = Date.now();
    let answeredBefore = -1;
    await until(() => { answeredBefore = slow.answered; return h.receiver.seen.length > 0; }, { timeout: 10_000, message: 'the ping' });
    console.log(`ping arrived after ${Date.now() - sent} ms; the slow endpoint had ${slow.maxOpen} requests open at most`);
    assert.is(answeredBefore, 0, `the ping waited for ${answeredBefore} of the slow endpoint's answers`);
    assert.is(h.receiver.seen[0].headers['service-event'], 'ping');
    assert.ok(slow.maxOpen <= 4, `one endpoint holds at most 4 slots (${slow.maxOpen})`);
    await until(() => slow.received >= 8, { timeout: 10_000, message: 'the slow endpoint keeps its share' });
  } finally { await h.close(); await slow.close(); }
});

test('one workspace with several slow endpoints holds at most 8 slots: another workspace\'s ping arrives before they answer', async () => {
  const h = await harness();
  const slow = await slowReceiver();
  const other = await startReceiver();
  try {
    for (const path of ['a', 'b', 'c', 'd']) await h.hooks.endpoints.add(WS, { url: `${slow.url}/${path}`, events: ['message.created'] });
    for (let i = 0; i < 40; i++) await publish(h, 'message.created', { message: { id: `msg_${i}`, visibility: 'public' } });
    await until(() => slow.open >= 8, { timeout: 5000, message: 'the slow receiver is busy' });
    const theirs = await h.hooks.endpoints.add('ws_other', { url: other.url, events: ['lead.captured'] });
    await h.hooks.endpoints.sendTest('ws_other', theirs.id);
    const sent = Date.now();
    let answeredBefore = -1;
    await until(() => { answeredBefore = slow.answered; return other.seen.length > 0; }, { timeout: 10_000, message: 'the other workspace\'s ping' });
    console.log(`other workspace's ping after ${Date.now() - sent} ms; the slow workspace had ${slow.maxOpen} requests open at most`);
    assert.is(answeredBefore, 0, `the ping waited for ${answeredBefore} of the slow workspace's answers`);
    assert.ok(slow.maxOpen <= 8, `one workspace holds at most 8 slots (${slow.maxOpen})`);
  } finally { await h.close(); await slow.close(); await other.close(); }
});

test('many backlogged endpoints share the process\'s 32 slots: never more in flight, and every endpoint is served', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const h = await harness();
  const slow = await slowReceiver();
  try {
    // 12 workspaces with one slow endpoint each: 4 slots per endpoint would make 48 tries at once.
    const workspaces = Array.from({ length: 12 }, (_, i) => `ws_many_${i}`);
    for (const ws of workspaces) await h.hooks.endpoints.add(ws, { url: `${slow.url}/${ws}`, events: ['message.created'] });
    for (let i = 0; i < 6; i++) {
      for (const ws of workspaces) await h.server.app.events.publish(ws, 'message.created', { botId: 'bot_1', conversationId: 'conv_1', message: { id: `msg_${i}`, visibility: 'public' } });
    }
    await until(() => slow.open >= 32, { timeout: 10_000, message: '32 tries in flight' });
    await until(() => slow.paths.size === workspaces.length, { timeout: 10_000, message: 'every endpoint served' });
    console.log(`${slow.maxOpen} tries in flight at most across ${workspaces.length} endpoints`);
    assert.is(slow.maxOpen, 32);
    // Each try listens for the server's shutdown; 32 of them are expected, not a leak Node should warn about.
    assert.equal(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')), []);
  } finally { process.off('warning', onWarning); await h.close(); await slow.close(); }
});

test.run();
