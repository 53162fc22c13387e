/**
 * The chat bench's server process: the real server on loopback with a temp DATA_DIR (embedded store), one
 * workspace, a provider connection pointing at the fake, and a running bot. It measures its own event-loop
 * delay and CPU time between `phaseStart` and `phaseStop` commands from the parent (IPC).
 *
 * bench/rest.ts and bench/idle-sockets.ts use it too: --env=production runs it as `npm start` does (no answer
 * checking), --log=<level> writes its log lines at that level to a file in its DATA_DIR (as an operator's server
 * writes them to stdout), and the ready line carries the owner's session (cookie, csrf) for API calls.
 *
 *   node --import tsx bench/chat-server.ts <fakeBaseUrl> [--env=test|production] [--log=silent|info] [--metrics]
 *     -> prints {"port":N,"botId":"...","cookie":"...","csrf":"..."} on stdout
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import { loadConfig } from '../src/config/index.js';
import { pino } from 'pino';
import { createLogger } from '../src/kernel/log.js';
import { startServer } from '../src/server.js';
import { seedBenchBot } from './seed-bot.js';
import { loopDelay } from './loop-delay.js';

export const BENCH_METRICS_TOKEN = 'bench-metrics-token-0123456789';
const fakeBaseUrl = process.argv[2];
if (!fakeBaseUrl) throw new Error('usage: chat-server.ts <fakeBaseUrl>');

const option = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt;
const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-chat-'));
const config = loadConfig({
  PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: option('env', 'test'), LOG_LEVEL: option('log', 'silent'), ALLOW_PRIVATE_NETWORK: 'true',
  TRUST_PROXY: 'true', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
  // The bench's clients are one loopback address with one token: the REST rate limits would answer 429.
  API_RATE_PER_TOKEN: '0', API_RATE_PER_ADDRESS: '0',
  // --metrics: metrics on (recorded, and served to the bench's scraper), to measure what they cost per turn.
  ...(process.argv.includes('--metrics') ? { METRICS_TOKEN: BENCH_METRICS_TOKEN } : {}),
});
// BENCH_SERVER_LOG=stderr sends the lines to stderr instead (to see what went wrong).
// Written asynchronously, as `npm start` writes its log (src/log.ts): a synchronous write per line held the event
// loop on every request, which a real server does not.
const logger = config.logLevel === 'silent' ? createLogger('silent') : createLogger(config.logLevel, pino.destination({ dest: process.env.BENCH_SERVER_LOG === 'stderr' ? 2 : join(dataDir, 'server.log'), sync: false }));
const server = await startServer(config, { logger });
const owner = await seedBenchBot(server, dataDir, {
  fakeBaseUrl, apiKey: 'k',
  config: (connectionId) => ({ brain: { connectionId, model: 'gpt-4o-mini' }, security: { rateLimits: { messagesPerMinute: 600, conversationsPerIpPerHour: 1000 } } }),
});
const { app } = server;

// --trace-store: counts and times store calls per collection and method (diagnostics for the profile).
const trace = new Map<string, { n: number; ms: number }>();
if (process.argv.includes('--trace-store')) {
  const proto = Object.getPrototypeOf(app.store.collection('events')) as Record<string, unknown>;
  for (const m of ['insertOne', 'insertMany', 'findById', 'findOne', 'find', 'count', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany']) {
    const orig = proto[m] as (...a: unknown[]) => Promise<unknown>;
    proto[m] = function (this: { name: string }, ...a: unknown[]) {
      const t = performance.now();
      const p = orig.apply(this, a);
      const k = `${this.name}.${m}`;
      const e = trace.get(k) ?? { n: 0, ms: 0 };
      e.n++; e.ms += performance.now() - t;
      trace.set(k, e);
      return p;
    };
  }
}

const loop = loopDelay();
// Garbage-collection pauses during the phase (count, total, longest), to tell GC stalls from the server's own work.
const gc = { n: 0, ms: 0, max: 0, on: false };
/** --heap-sample=survivors: 'armed' waits for a scavenge to start sampling, 'sampling' for the next to stop. */
let survivors: 'off' | 'armed' | 'sampling' = 'off';
new PerformanceObserver((list) => {
  if (!gc.on) return;
  for (const e of list.getEntries()) {
    if ((e as unknown as { detail: { kind: number } }).detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) onScavenge();
    gc.n++; gc.ms += e.duration; gc.max = Math.max(gc.max, e.duration);
    if (process.env.BENCH_GC_LOG) process.stderr.write(`gc kind ${(e as unknown as { detail: { kind: number } }).detail.kind} ${e.duration.toFixed(2)} ms heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB\n`);
  }
}).observe({ entryTypes: ['gc'] });
// --prof: a V8 CPU profile of each measured phase only (not start-up or warm-up), written to the given folder.
const profDir = process.argv.find((a) => a.startsWith('--prof='))?.slice(7);
// --heap-sample=all|live|survivors: a sampling heap profile of each measured phase (bench/.prof/chat-phase-N-*.heapprofile):
// `all` counts every allocation of the phase (what drives scavenge frequency); `live` what 2 s mid-phase allocated
// that is still alive at their end (what scavenges copy and promote); `survivors` what was allocated between two
// scavenges 10 s into the phase and survived the second (what that scavenge copied, its promotions aside).
const heapSample = process.argv.find((a) => a.startsWith('--heap-sample='))?.slice(14);
const inspector = profDir || heapSample ? new Session() : null;
if (inspector) inspector.connect();
if (profDir) { await inspector!.post('Profiler.enable'); await inspector!.post('Profiler.setSamplingInterval', { interval: 250 }); }
let phase = 0;
/** Where a heap profile or snapshot of the server goes: bench/.prof/<name> (the folder is made if needed). */
function profPath(name: string): string {
  mkdirSync('bench/.prof', { recursive: true });
  return join('bench/.prof', name);
}
const writeProfile = (name: string, profile: unknown) => writeFileSync(profPath(name), JSON.stringify(profile));
function onScavenge(): void {
  if (survivors === 'armed') { survivors = 'sampling'; void inspector!.post('HeapProfiler.startSampling', { samplingInterval: 128 }); return; }
  if (survivors !== 'sampling') return;
  survivors = 'off';
  void inspector!.post('HeapProfiler.stopSampling').then(({ profile }) => writeProfile(`chat-phase-${phase + 1}-survivors.heapprofile`, profile));
}
let liveSession: Session | null = null;
let cpu = process.cpuUsage();
let t0 = performance.now();

process.on('message', async (m: { cmd: string }) => {
  if (m.cmd === 'phaseStart') {
    if (profDir) await inspector!.post('Profiler.start');
    if (heapSample === 'all') await inspector!.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
    if (heapSample === 'survivors') setTimeout(() => { survivors = 'armed'; }, 10_000);
    if (heapSample === 'live') {
      // What was allocated in 2 s mid-phase and is still alive at its end: the objects scavenges copy and promote.
      setTimeout(() => void inspector!.post('HeapProfiler.startSampling', { samplingInterval: 1024 }), 10_000);
      setTimeout(async () => {
        const { profile } = await inspector!.post('HeapProfiler.stopSampling');
        writeProfile(`chat-phase-${phase + 1}-live.heapprofile`, profile);
      }, 12_000);
    }
    // BENCH_HEAP_AT=<ms>: a heap snapshot of the server that long into each measured phase (to bench/.prof/).
    if (process.env.BENCH_HEAP_AT) setTimeout(() => { process.stderr.write(`heap snapshot ${writeHeapSnapshot(profPath(`chat-phase-${phase + 1}.heapsnapshot`))}\n`); }, Number(process.env.BENCH_HEAP_AT));
    trace.clear(); loop.start(); Object.assign(gc, { n: 0, ms: 0, max: 0, on: true }); cpu = process.cpuUsage(); t0 = performance.now();
    process.send!({ ok: true });
  } else if (m.cmd === 'phaseStop') {
    const delay = loop.stop();
    gc.on = false;
    phase++;
    if (profDir) {
      const { profile } = await inspector!.post('Profiler.stop');
      writeFileSync(join(profDir, `chat-phase-${phase}.cpuprofile`), JSON.stringify(profile));
    }
    if (heapSample === 'all') {
      const { profile } = await inspector!.post('HeapProfiler.stopSampling');
      writeProfile(`chat-phase-${phase}-${heapSample}.heapprofile`, profile);
    }
    const used = process.cpuUsage(cpu);
    const wall = performance.now() - t0;
    if (trace.size) process.stderr.write(`store calls this phase:\n${[...trace].sort((a, b) => b[1].ms - a[1].ms).map(([k, v]) => `  ${k} x${v.n} ${v.ms.toFixed(1)} ms`).join('\n')}\n`);
    process.send!({ loopP50: delay.p50, loopP99: delay.p99, loopMax: delay.max, cpuPct: ((used.user + used.system) / 1000 / wall) * 100, rssMb: process.resourceUsage().maxRSS / 1024, gcCount: gc.n, gcMs: gc.ms, gcMax: gc.max });
  } else if (m.cmd === 'heapUsed') {
    // After a full GC (node --expose-gc): what the heap holds now (bench/stream-memory.ts).
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ heapUsed: process.memoryUsage().heapUsed });
  } else if (m.cmd === 'mem') {
    // After a full GC (node --expose-gc): rss, heapUsed, external, arrayBuffers (bench/idle-sockets.ts).
    (globalThis as { gc?: () => void }).gc?.();
    process.send!(process.memoryUsage());
  } else if (m.cmd.startsWith('heapSnapshot ')) {
    // A heap snapshot to the given file (bench/heap-diff.mjs compares two).
    writeHeapSnapshot(m.cmd.slice(13));
    process.send!({ ok: true });
  } else if (m.cmd === 'liveSampleStart') {
    if (!inspector) { const s = new Session(); s.connect(); liveSession = s; } else liveSession = inspector;
    await liveSession.post('HeapProfiler.startSampling', { samplingInterval: 256 });
    process.send!({ ok: true });
  } else if (m.cmd.startsWith('liveSampleStop ')) {
    // What was allocated since liveSampleStart and is still alive after a full GC, by allocation site.
    (globalThis as { gc?: () => void }).gc?.();
    const { profile } = await liveSession!.post('HeapProfiler.stopSampling');
    writeFileSync(m.cmd.slice(15), JSON.stringify(profile));
    process.send!({ ok: true });
  } else if (m.cmd === 'quit') {
    void server.close().finally(() => { rmSync(dataDir, { recursive: true, force: true }); process.exit(0); });
  }
});
process.stdout.write(`${JSON.stringify({ port: server.port, botId: 'bot_bench', cookie: owner.cookie, csrf: owner.csrf })}\n`);
