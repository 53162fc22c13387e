/**
 * Chat benchmark (issue 5): N concurrent widget sockets, each holding TURNS turns with a bot whose brain is a
 * fake streaming provider (OpenAI SSE on loopback), against a baseline measured in the same run.
 *
 * Three processes, so the server's event loop carries only the server's work:
 *   - bench/chat-server.ts  the real server (uWS, actors, embedded SQLite store in a temp DATA_DIR), built first
 *                           (bench/build.ts) and run by plain node from dist/ as `npm start` runs it (--tsx: sources);
 *   - bench/chat-fake.ts    the fake provider; it stamps the first token of each answer with its write time;
 *   - this process          the clients (`ws` widget sockets; plain HTTP clients for the baseline).
 *
 *   added latency = first delta frame received at the widget  - first token written by the provider
 *   baseline      = first token received by a client reading the provider directly - first token written
 * Both use the machine's wall clock (performance.timeOrigin + performance.now() in each process); a fixed
 * offset between the processes' clocks cancels in "through server - baseline".
 *
 * Also: turns per second with storage, and the server's own event-loop delay p99 and CPU use during the run.
 * Loopback only; each visitor gets its own X-Forwarded-For address (TRUST_PROXY) so per-IP limits hold.
 *
 *   npx tsx bench/chat.ts [sockets=100,500,1000] [turns=3] [thinkMs=0] [--chunks=12] [--gap=2] [--ramp=ms] [--pin[=server]] [--tsx] [--prof] [--trace-store]
 *   thinkMs 0 asks the next question as soon as a reply is stored (the server saturates: gives the most
 *   turns/s); a think time (uniform 0..2x) paces visitors so latency is measured below saturation.
 *   --ramp spreads the visitors' first questions over that many ms (default 2 x thinkMs). 1,000 streams truly
 *   in flight at once: `1000 2 500 --chunks=40 --gap=250 --ramp=10000 --pin` (10 s replies).
 *   --pin gives the server's main thread CPU 0 to itself and puts everything else (the clients, the fake, the
 *   server's other threads) on CPU 1, so neither the load generator nor a helper thread preempts the event loop.
 *   --pin=server puts all of the server's threads on CPU 0 (a one-core server) and the rest on CPU 1.
 *   Event-loop delays are net of the 5 ms sampling timer (bench/loop-delay.ts).
 *   The server's GC pauses during the phase are counted (BENCH_GC_LOG=1 prints each one to stderr);
 *   BENCH_SERVER_FLAGS passes Node flags to the server process (e.g. "--max-semi-space-size=64").
 *   --heap-sample=all|live|survivors writes a sampling heap profile of the server (all allocations of each phase, what
 *   2 s mid-phase allocated that is still alive): summarise it with `node bench/heap-top.mjs <file>`.
 *   (--prof writes a V8 CPU profile of each measured phase of the server to bench/.prof/chat-phase-N.cpuprofile;
 *   --trace-store prints the server's
 *   store calls per phase to stderr. Summarise a profile with `node bench/prof-top.mjs <file>`.)
 *
 *   --metrics turns the server's Prometheus metrics on (METRICS_TOKEN) and scrapes /metrics every 5 s during each phase,
 *   as Prometheus would: compare its CPU ms per turn with a run without it (docs/performance.md, ## Metrics).
 *
 * Results are kept in docs/performance.md (## Chat).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { buildServerForBench } from './build.js';
import { startChild, type Child } from './child.js';
import { loopDelay } from './loop-delay.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const PROF = process.argv.includes('--prof');
const PIN = process.argv.find((a) => a.startsWith('--pin'))?.split('=')[1] ?? (process.argv.includes('--pin') ? 'main' : null);
const SCENARIOS = (args[0] ?? '100,500,1000').split(',').map((n) => Math.max(1, Math.min(Number(n) || 100, 5000)));
const TURNS = Math.max(1, Math.min(Number(args[1]) || 3, 50));
/** Mean pause between a reply and the visitor's next question (uniform 0..2x); 0 = ask at once (saturation). */
const THINK_MS = Math.max(0, Math.min(Number(args[2]) || 0, 60_000));
const flag = (name: string, dflt: number) => { const a = process.argv.find((x) => x.startsWith(`--${name}=`)); return a ? Number(a.split('=')[1]) : dflt; };
/** Shape of each fake reply: CHUNKS content chunks CHUNK_GAP_MS apart (a reply streams for CHUNKS x CHUNK_GAP_MS). */
const CHUNKS = Math.max(1, Math.min(flag('chunks', 12), 1000));
const CHUNK_GAP_MS = Math.max(0, Math.min(flag('gap', 2), 10_000));
/** Visitors ask their first question at a uniform random time in [0, RAMP_MS) (default 2 x thinkMs; 0 = all at once). */
const RAMP_MS = Math.max(0, Math.min(flag('ramp', 2 * THINK_MS), 600_000));
/** A scenario that takes longer than this is cut off and reported as such. */
const SCENARIO_LIMIT_MS = 180_000;
const here = dirname(fileURLToPath(import.meta.url));
/** --tsx runs the server from the TypeScript sources under tsx (as tests do) instead of the build `npm start` runs. */
const TSX = process.argv.includes('--tsx');
const wallNow = () => performance.timeOrigin + performance.now();
const METRICS = process.argv.includes('--metrics');

interface PhaseStats { loopP50: number; loopP99: number; loopMax: number; cpuPct: number; rssMb: number; gcCount: number; gcMs: number; gcMax: number }
const clientLoop = loopDelay();
const pct = (xs: number[], p: number) => { const s = Float64Array.from(xs).sort(); return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN; };
const stampOf = (text: string) => { const m = /@(\d+\.\d+)/.exec(text); return m ? Number(m[1]) : NaN; };

/** N concurrent clients reading the provider directly, TURNS requests each (paced like the visitors). */
async function baseline(fakePort: number, n: number): Promise<{ lat: number[]; perSec: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const body = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hello' }] });
  const lat: number[] = [];
  const one = () => new Promise<void>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: fakePort, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let first = true;
      res.setEncoding('utf8');
      res.on('data', (c: string) => { if (first) { const at = stampOf(c); if (at) { lat.push(wallNow() - at); first = false; } } });
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(body);
  });
  const start = performance.now();
  const think = () => new Promise((r) => setTimeout(r, Math.random() * 2 * THINK_MS));
  const ramp = () => new Promise((r) => setTimeout(r, Math.random() * RAMP_MS));
  await Promise.all(Array.from({ length: n }, async () => { for (let t = 0; t < TURNS; t++) { if (t === 0) { if (RAMP_MS) await ramp(); } else if (THINK_MS) await think(); await one(); } }));
  const perSec = (n * TURNS) / ((performance.now() - start) / 1000);
  agent.destroy();
  return { lat, perSec };
}

/** The real path: widget socket -> conversation actor -> provider adapter -> store -> socket. */
async function throughServer(port: number, botId: string, n: number, scenario: number, server: Child) {
  const connect = (i: number) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/widget/v1/chat?botId=${botId}`, { perMessageDeflate: false, headers: { 'x-forwarded-for': `10.${scenario}.${(i >> 8) & 255}.${i & 255}` } });
    ws.once('message', () => resolve(ws));
    ws.once('error', reject);
  });
  const sockets: WebSocket[] = [];
  for (let i = 0; i < n; i += 50) sockets.push(...await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => connect(i + k))));
  const lat: number[] = [];
  let turns = 0;
  // Streams in flight: a question sent whose reply is not stored yet (time-weighted mean and maximum).
  let inFlight = 0, maxInFlight = 0, area = 0, lastChange = performance.now();
  const flight = (d: number) => { const now = performance.now(); area += inFlight * (now - lastChange); lastChange = now; inFlight += d; maxInFlight = Math.max(maxInFlight, inFlight); };
  await server.call('phaseStart');
  await fake.call('loopStart');
  clientLoop.start();
  const start = performance.now();
  const scraper = METRICS ? setInterval(() => void fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer bench-metrics-token-0123456789' } }).then((r) => r.text()), 5000) : null;
  let timedOut = false;
  const limit = new Promise<void>((r) => setTimeout(() => { timedOut = true; r(); }, SCENARIO_LIMIT_MS).unref());
  await Promise.race([limit, Promise.all(sockets.map((ws, i) => new Promise<void>((resolve, reject) => {
    let t = 0;
    let sawDelta = false;
    const ask = () => { sawDelta = false; flight(1); ws.send(JSON.stringify({ t: 'message', text: `question ${i}/${t}` })); };
    ws.on('message', (data) => {
      const text = String(data);
      // Deltas are only timed (the first of each reply), never parsed: the clients' own work is kept small so
      // their event loop adds as little as possible to what is measured.
      if (text.startsWith('{"t":"delta"')) {
        if (!sawDelta) { lat.push(wallNow() - stampOf(text)); sawDelta = true; }
        return;
      }
      const f = JSON.parse(text);
      if (f.t === 'message' && f.message.role === 'assistant') {
        turns++;
        flight(-1);
        if (++t === TURNS || timedOut) resolve();
        else if (THINK_MS) setTimeout(ask, Math.random() * 2 * THINK_MS);
        else ask();
      }
      else if (f.t === 'error') reject(new Error(`socket ${i}: ${f.code} ${f.message}`));
    });
    // Visitors arrive spread over the ramp, as real visitors would (a ramp of 0 starts them all at once).
    if (RAMP_MS) setTimeout(ask, Math.random() * RAMP_MS); else ask();
  })))]);
  const elapsed = (performance.now() - start) / 1000;
  if (scraper) clearInterval(scraper);
  flight(0);
  const streams = { mean: area / (performance.now() - start), max: maxInFlight };
  const stats = await server.call<PhaseStats>('phaseStop');
  const others = { clientLoop: clientLoop.stop(), fakeLoop: await fake.call<ReturnType<typeof clientLoop.stop>>('loopStop') };
  for (const ws of sockets) ws.terminate();
  return { lat, turnsPerSec: turns / elapsed, turns, timedOut, streams, ...stats, ...others };
}

if (!TSX) await buildServerForBench();
const fake = await startChild('chat-fake.ts', [String(CHUNKS), String(CHUNK_GAP_MS)]);
const fakePort = fake.ready.port as number;
if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '1', String(fake.proc.pid)]);
if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)]);
if (PROF) mkdirSync(join(here, '.prof'), { recursive: true });
const server = await startChild('chat-server.ts', [`http://127.0.0.1:${fakePort}/v1`, ...process.argv.filter((a) => a === '--trace-store' || a === '--metrics' || a.startsWith('--heap-sample=')), ...(PROF ? [`--prof=${join(here, '.prof')}`] : [])], process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [], !TSX);
// The server's main thread (the event loop) gets CPU 0 to itself; its other threads (the store's, V8's GC helpers,
// libuv's pool) share CPU 1 with the clients and the fake.
if (PIN === 'main') { execFileSync('taskset', ['-a', '-p', '-c', '1', String(server.proc.pid)]); execFileSync('taskset', ['-p', '-c', '0', String(server.proc.pid)]); }
if (PIN === 'server') execFileSync('taskset', ['-a', '-p', '-c', '0', String(server.proc.pid)]);
const f = (x: number) => x.toFixed(2);
console.log(`chat bench${METRICS ? ' (metrics on, scraped every 5 s)' : ''}: ${TURNS} turns per socket, think time ${THINK_MS ? `${THINK_MS} ms mean` : 'none'}, ${CHUNKS} chunks per reply ${CHUNK_GAP_MS} ms apart; server, provider and clients in separate processes`);
console.log('sockets | streams mean / max | baseline first token p50/p99 ms | via server first delta p50/p99 ms | added p50/p99 ms | ratio p99 | turns/s (baseline streams/s) | server loop p99 / max ms | server CPU % (ms per turn) | server peak RSS MB | GC pauses n / total ms / max ms | clients, fake loop p99 ms');
try {
  // Warm-up (not reported): lazy imports, JIT, first prepared statements, on both paths.
  await baseline(fakePort, 50);
  await throughServer(server.ready.port as number, server.ready.botId as string, 50, 0, server);
  for (const [s, n] of SCENARIOS.entries()) {
    const base = await baseline(fakePort, n);
    const run = await throughServer(server.ready.port as number, server.ready.botId as string, n, s + 1, server);
    const b50 = pct(base.lat, 0.5), b99 = pct(base.lat, 0.99), c50 = pct(run.lat, 0.5), c99 = pct(run.lat, 0.99);
    console.log(`${String(n).padStart(7)} | ${run.streams.mean.toFixed(0)} / ${run.streams.max} | ${f(b50)} / ${f(b99)} | ${f(c50)} / ${f(c99)} | ${f(c50 - b50)} / ${f(c99 - b99)} | ${(c99 / b99).toFixed(1)}x | ${run.turnsPerSec.toFixed(0)} (${base.perSec.toFixed(0)}) | ${f(run.loopP99)} / ${f(run.loopMax)} | ${run.cpuPct.toFixed(0)} (${f(run.cpuPct * 10 / run.turnsPerSec)}) | ${run.rssMb.toFixed(0)} | ${run.gcCount} / ${run.gcMs.toFixed(0)} / ${f(run.gcMax)} | ${f(run.clientLoop.p99)}, ${f(run.fakeLoop.p99)}${run.timedOut ? ` | CUT OFF after ${SCENARIO_LIMIT_MS / 1000} s (${run.turns} turns)` : ''}`);
  }
  console.log('targets (issue 5): added p99 < 5 ms at 1000 streams; server event-loop delay p99 < 10 ms');
} finally {
  await Promise.all([server, fake].map((c) => new Promise<void>((r) => { c.proc.once('exit', () => r()); c.proc.send({ cmd: 'quit' }); })));
}
