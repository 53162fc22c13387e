/**
 * Cross-process event latency (issue 25, target p99 <= 5 ms on loopback). A WORKERS=2 group with Redis; a
 * visitor on process A chats, and two live sockets of the owner (one on A, one on B) receive each stored
 * message.created. For every event the bench takes the arrival time on both sockets (performance.now in this
 * process, stamped before any parsing), so "B - A" is what crossing to another process adds, measured to the
 * microsecond with no clock comparison. Same-run baselines: the event on A's own socket (from the message's
 * createdAt, ms resolution), and a bare ioredis PUBLISH -> SUBSCRIBE round trip with the same Redis.
 *
 *   node --import tsx bench/scale-events.ts [--events=300] [--load=0] [--redis=1000] [--prof=DIR]
 *
 * --load=N keeps N more visitors chatting on both processes while measuring (the latency under load).
 * Run it pinned (`taskset -c 1 ...`) to keep other work on the machine from landing on the same core.
 */
import { cpus, loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { startGroupWorld } from '../test/scale/world.js';
import type { FrameClient } from '../test/team/helpers.js';
import { processCpuMs } from './proc-cpu.js';

const arg = (name: string, d: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const EVENTS = arg('events', 300);
const LOAD = arg('load', 0);
const REDIS_ROUNDS = arg('redis', 1000);
/** --prof=DIR: the group's processes write V8 CPU profiles there when they stop (read with bench/prof-top.mjs). */
const PROF = process.argv.find((a) => a.startsWith('--prof='))?.slice(7);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN; };
const row = (name: string, xs: number[]) =>
  `${name.padEnd(44)} n=${String(xs.length).padStart(4)}  p50 ${pct(xs, 0.5).toFixed(2).padStart(6)}  p95 ${pct(xs, 0.95).toFixed(2).padStart(6)}  p99 ${pct(xs, 0.99).toFixed(2).padStart(6)}  max ${Math.max(...xs).toFixed(2).padStart(6)} ms`;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const wall = () => performance.timeOrigin + performance.now();

/** Bare Redis: one client publishes, another (subscribed) receives; the time between, one message at a time. */
async function redisRoundTrip(url: string, rounds: number): Promise<number[]> {
  const pub = new Redis(url);
  const sub = new Redis(url);
  await sub.subscribe('bench:rt');
  const out: number[] = [];
  let wake: (() => void) | null = null;
  sub.on('message', (_c, raw) => { out.push(performance.now() - Number(JSON.parse(raw).t)); wake?.(); });
  for (let i = 0; i < rounds; i++) {
    const got = new Promise<void>((r) => { wake = r; });
    // The same shape and size as a relayed message.created, so JSON and bytes cost the same.
    await pub.publish('bench:rt', JSON.stringify({ o: 'node-x', t: performance.now(), m: { pad: 'x'.repeat(600) } }));
    await got;
  }
  pub.disconnect(); sub.disconnect();
  return out;
}

/** Arrival times of message.created frames by message id, stamped on the raw frame before parsing it. */
function stampArrivals(c: FrameClient, onArrive: (id: string) => void = () => {}): Map<string, { at: number; wall: number; createdAt: number }> {
  const seen = new Map<string, { at: number; wall: number; createdAt: number }>();
  c.ws.on('message', (raw) => {
    const at = performance.now();
    const w = wall();
    const f = JSON.parse(String(raw));
    if (f.type !== 'message.created') return;
    seen.set(f.data.message.id, { at, wall: w, createdAt: f.data.message.createdAt });
    onArrive(f.data.message.id);
  });
  return seen;
}

const world = await startGroupWorld({ n: 2, botPatch: { security: { rateLimits: { messagesPerMinute: 600, conversationsPerIpPerHour: 10000 } } }, env: { LEASE_MS: '10000' }, nodeArgs: PROF ? ['--cpu-prof', `--cpu-prof-dir=${PROF}`] : [] });
try {
  console.log(`cores ${cpus().length}, load ${load()}, events ${EVENTS}, background visitors ${LOAD}`);
  const base = await redisRoundTrip(world.redis.url, REDIS_ROUNDS);

  const onA = await world.live(0, world.owner);
  const onB = await world.live(1, world.owner);
  await new Promise((r) => setTimeout(r, 500)); // B's presence reaches Redis (A then relays streamed events too)
  const arrA = stampArrivals(onA);
  let onArriveB: ((id: string) => void) | null = null;
  const arrB = stampArrivals(onB, (id) => onArriveB?.(id));

  let stop = false;
  // Background visitors pace themselves (a turn at most every 300 ms): a widget socket may send 240 frames a minute.
  const background = Promise.all(Array.from({ length: LOAD }, async (_, i) => {
    const v = await world.widget(i % 2);
    v.ws.on('error', (e) => console.log(`background visitor ${i}: client error ${e.message}`));
    await v.frame('ready');
    for (let n = 0; !stop; n++) {
      const t0 = Date.now();
      v.send({ t: 'message', text: `bg${i}-${n}` });
      const f = await v.next((x) => x.t === 'error' || (x.t === 'message' && x.message.role === 'assistant' && x.message.text === `You said: bg${i}-${n}`), 30_000);
      if (f.t === 'error') throw new Error(`background visitor ${i} refused: ${JSON.stringify(f)}`);
      await new Promise((r) => setTimeout(r, Math.max(0, 300 - (Date.now() - t0))));
    }
  }));
  background.catch(() => {}); // awaited (and thrown) after the measurement

  // Visitor turns on A: the visitor's message and the reply (the fake provider answers in this process).
  const visitor = await world.widget(0);
  await visitor.frame('ready');
  const turns: string[] = [];
  // At most 100 turns: a widget socket may send 240 frames a minute.
  for (let i = 0; i < Math.min(100, EVENTS / 2); i++) {
    visitor.send({ t: 'message', text: `e${i}` });
    const user = await visitor.frame('message', (f) => f.message.role === 'user' && f.message.text === `e${i}`);
    const reply = await visitor.frame('message', (f) => f.message.role === 'assistant' && f.message.text === `You said: e${i}`);
    turns.push(user.message.id, reply.message.id);
  }
  // Team messages: the owner took the conversation over and writes through A's REST API (no provider call).
  const conversationId = (await visitor.frame('conversation')).conversationId;
  const a = world.w(0);
  if ((await a.request('POST', `/api/v1/conversations/${conversationId}/takeover`, { headers: world.owner.headers })).status !== 200) throw new Error('takeover failed');
  const team: string[] = [];
  // B's CPU time for the events it relays, less what it spends idle (timers) over as long: load-independent.
  const bPid = world.group.workers[1].pid;
  const idle0 = processCpuMs(bPid), idleT0 = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  const idleRate = (processCpuMs(bPid) - idle0) / (performance.now() - idleT0);
  const busy0 = processCpuMs(bPid), busyT0 = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const r = await a.request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: `t${i}` }, headers: world.owner.headers });
    if (r.status !== 201) throw new Error(`team message answered ${r.status}: ${JSON.stringify(r.body)}`);
    team.push(r.body.id);
    // One event in flight at a time: the next is sent once B has this one.
    if (!arrB.has(r.body.id)) await new Promise<void>((res) => { onArriveB = (id) => { if (id === r.body.id) res(); }; });
  }
  const bCpuPerEvent = (processCpuMs(bPid) - busy0 - idleRate * (performance.now() - busyT0)) / EVENTS;
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await background;

  const report = (label: string, ids: string[]) => {
    const across: number[] = [], localAbs: number[] = [], remoteAbs: number[] = [];
    let missing = 0;
    for (const id of ids) {
      const a = arrA.get(id), b = arrB.get(id);
      if (!a || !b) { missing++; continue; }
      across.push(b.at - a.at);
      localAbs.push(a.wall - a.createdAt);
      remoteAbs.push(b.wall - b.createdAt);
    }
    console.log(row(`${label}: B minus A (what crossing adds)`, across));
    console.log(row(`${label}: A (same process), from createdAt`, localAbs));
    console.log(row(`${label}: B (other process), from createdAt`, remoteAbs));
    if (missing) console.log(`${missing} of ${ids.length} events missing on a socket`);
  };
  console.log(`load after ${load()}`);
  console.log(row('bare Redis PUBLISH -> SUBSCRIBE (ioredis)', base));
  report('visitor turns', turns);
  report('team messages', team);
  console.log(`B's CPU per relayed team message (its timers' idle CPU taken out): ${(bCpuPerEvent * 1000).toFixed(0)} us`);
} finally {
  await world.close();
}
