/**
 * The voice bench's server process: the real server on loopback (temp DATA_DIR, embedded store), one workspace,
 * an OpenAI connection whose base URL is the fake engine, and a running bot with realtime voice on (caps raised so
 * N sessions fit). Commands from the parent (IPC):
 *   phaseStart / phaseStop   event-loop delay, CPU and GC pauses between them, counted only while not paused
 *                            (phasePause / phaseResume; the loop delay is the worst window's); --prof=<dir>: a CPU
 *                            profile of the phase too
 *   mem                      memory after a full GC (run with --expose-gc)
 *   live                     voice sessions live
 *   probe <n> <url>          opens n bare engine sockets (ws, the engine's options) to the fake: their own cost
 *   probeClose               closes them
 *   vad [reset]              the cascade VAD's frames, batches and answer wait (total and longest, ms)
 *   turnRule adaptive|fixed  cascade end of turn judged on the words (the default) or the old fixed 0.8 s pause, from
 *                            the next turn of every session (the turn-taking bench's baseline, in the same run)
 *   markThreads              notes the threads alive now; CPU of threads started later (the cascade VAD's worker
 *                            and its model's threads) is reported apart as lateCpuPct
 *   sampleStart [all|promoted] / sampleStop <file>   a sampling heap profile of what is allocated between them and
 *                            still alive (all: every allocation; promoted: what outlived the scavenges)
 *
 *   node bench/voice-server.ts <fakeBaseUrl> <sessions> [--mode=cascade] [--no-ahead]   -> prints {"port":N,"botId":"..."} on stdout
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import WebSocket from 'ws';
import { audioDeltaReads } from '../src/providers/realtime-openai-audio.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/kernel/log.js';
import { startServer } from '../src/server.js';
import { SileroVad } from '../src/providers/cascade/silero.js';
import { turnTaking } from '../src/providers/cascade/end-of-turn.js';
import { seedBenchBot } from './seed-bot.js';
import { loopDelay } from './loop-delay.js';
import { gcAccount } from './gc-account.js';
import { API_KEY, MODEL } from './voice-wire.js';
import { statCpuMs } from './proc-cpu.js';

const [fakeBaseUrl, sessionsArg] = process.argv.slice(2);
if (!fakeBaseUrl) throw new Error('usage: voice-server.ts <fakeBaseUrl> <sessions>');
const sessions = Math.max(1, Math.min(Number(sessionsArg) || 200, 1000));
/** --mode=cascade: the bot's voice is cascade (speech to text, brain and speech all on the fake's OpenAI connection). */
const cascade = process.argv.includes('--mode=cascade');
/** --no-ahead: the engine's audio deltas all parsed by ws, as before they were read ahead of it (a baseline). */
if (process.argv.includes('--no-ahead')) audioDeltaReads.aheadOn = false;

const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-voice-'));
const config = loadConfig({
  PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ALLOW_PRIVATE_NETWORK: 'true',
  TRUST_PROXY: 'true', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
  // Every bench visitor talks from loopback: the per-visitor and per-address voice limits would cap the run at 4.
  VOICE_SESSIONS_PER_VISITOR: '0', VOICE_SESSIONS_PER_ADDRESS: '0',
});
const server = await startServer(config, { logger: createLogger('silent') });
await seedBenchBot(server, dataDir, {
  fakeBaseUrl, apiKey: API_KEY,
  config: (connectionId) => ({
    brain: { connectionId, model: 'gpt-4o-mini' },
    voice: cascade ? { enabled: true, mode: 'cascade' } : { enabled: true, mode: 'realtime', realtime: { model: MODEL } },
    security: { rateLimits: { messagesPerMinute: 600, conversationsPerIpPerHour: 1000 }, caps: { concurrentVoiceSessions: sessions } },
  }),
});

const loop = loopDelay();
/** V8's own record of each GC in the windows: young bytes allocated, scavenges, survivors, pauses. */
const gcs = gcAccount();
const gc = { n: 0, ms: 0, max: 0, on: false };
new PerformanceObserver((list) => {
  if (!gc.on) return;
  for (const e of list.getEntries()) { gc.n++; gc.ms += e.duration; gc.max = Math.max(gc.max, e.duration); }
}).observe({ entryTypes: ['gc'] });
const profDir = process.argv.find((a) => a.startsWith('--prof='))?.slice(7);
let inspector: Session | null = null;
const inspect = async () => { if (!inspector) { inspector = new Session(); inspector.connect(); } return inspector; };
if (profDir) await (await inspect()).post('Profiler.setSamplingInterval', { interval: 250 });
let cpu = process.cpuUsage();
let threads = threadCpu();
let t0 = performance.now();
const probes: WebSocket[] = [];
/** The kind of the heap sampling under way (sampleStart's argument). */
let sampling = 'live';

/**
 * CPU time (ms) of the main thread (the event loop) and of all the process's other threads (the store's, V8's GC
 * helpers, libuv's pool), from /proc (Linux; clock ticks of 10 ms). Empty elsewhere.
 */
function threadCpu(): { main: number; others: number; late: number } {
  const out = { main: 0, others: 0, late: 0 };
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const [user, sys] = statCpuMs(`/proc/self/task/${tid}/stat`);
      const ms = user + sys;
      if (Number(tid) === process.pid) out.main += ms; else out.others += ms;
      if (early && !early.has(tid)) out.late += ms;
    }
  } catch { /* not Linux */ }
  return out;
}

/** Threads alive at `markThreads` (before any voice session): those started later are the VAD's worker and its model's. */
let early: Set<string> | null = null;

/** CPU and wall time of the phase so far, counted only while it runs (between resume and pause). */
const phase = { cpuMs: 0, mainMs: 0, lateMs: 0, wall: 0, windows: [] as Array<{ p50: number; p99: number; max: number }> };
function count(): void {
  const used = process.cpuUsage(cpu);
  const th = threadCpu();
  phase.cpuMs += (used.user + used.system) / 1000;
  phase.mainMs += th.main - threads.main;
  phase.lateMs += th.late - threads.late;
  phase.wall += performance.now() - t0;
}

/** The young generation's current size (both semi-spaces' capacity as V8 reports new_space), MB: what it grew to. */
const newSpaceMb = () => (v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0) / 1048576;

function memory() {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('voice-server.ts needs --expose-gc for mem');
  g(); g();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

/** Bare engine sockets: what src/providers/realtime-openai-socket.ts opens, without the SDK or the session. */
async function probe(n: number, url: string): Promise<void> {
  await Promise.all(Array.from({ length: n }, () => new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, headers: { authorization: `Bearer ${API_KEY}` } });
    probes.push(ws);
    ws.once('message', () => resolve());
    ws.once('error', reject);
  })));
}

process.on('message', async (m: { cmd: string }) => {
  const [cmd, ...args] = m.cmd.split(' ');
  if (cmd === 'phaseStart') {
    if (profDir) { await inspector!.post('Profiler.enable'); await inspector!.post('Profiler.start'); }
    Object.assign(phase, { cpuMs: 0, mainMs: 0, wall: 0, windows: [] });
    loop.start(); Object.assign(gc, { n: 0, ms: 0, max: 0, on: true }); gcs.reset(); gcs.start(); cpu = process.cpuUsage(); threads = threadCpu(); t0 = performance.now();
    process.send!({ ok: true });
  } else if (cmd === 'phasePause' || cmd === 'phaseStop') {
    // Each window's loop delay is its own histogram (monitorEventLoopDelay cannot skip the pause between windows).
    if (gc.on) { phase.windows.push(loop.stop()); gc.on = false; gcs.pause(); count(); }
    if (cmd === 'phasePause') { process.send!({ ok: true }); return; }
    const { cpuMs, mainMs, lateMs, wall, windows } = phase;
    const worst = (k: 'p50' | 'p99' | 'max') => Math.max(...windows.map((w) => w[k]));
    const delay = { p50: worst('p50'), p99: worst('p99'), max: worst('max') };
    if (profDir) {
      const { profile } = await inspector!.post('Profiler.stop');
      writeFileSync(join(profDir, `voice-${sessions}.cpuprofile`), JSON.stringify(profile));
    }
    process.send!({ loopP50: delay.p50, loopP99: delay.p99, loopMax: delay.max, cpuPct: (cpuMs / wall) * 100, mainCpuPct: (mainMs / wall) * 100, lateCpuPct: (lateMs / wall) * 100, gcCount: gc.n, gcMs: gc.ms, gcMax: gc.max, gcAccount: gcs.result(), newSpaceMb: newSpaceMb(), deltaReads: audioDeltaReads, live: server.services.voice.live });
  } else if (cmd === 'phaseResume') {
    loop.start(); gc.on = true; gcs.start(); cpu = process.cpuUsage(); threads = threadCpu(); t0 = performance.now();
    process.send!({ ok: true });
  } else if (cmd === 'mem') process.send!(memory());
  else if (cmd === 'vad') {
    // Cascade: frames the VAD judged and how long they waited for it; `vad reset` starts the count again.
    const { stats } = await SileroVad.shared();
    const out = { ...stats };
    if (args[0] === 'reset') Object.assign(stats, { frames: 0, batches: 0, waitMs: 0, waitMaxMs: 0 });
    process.send!(out);
  } else if (cmd === 'turnRule') { turnTaking.adaptive = args[0] !== 'fixed'; process.send!({ ok: true }); }
  else if (cmd === 'markThreads') { early = new Set(readdirSync('/proc/self/task')); process.send!({ ok: true }); }
  else if (cmd === 'live') process.send!({ live: server.services.voice.live });
  else if (cmd === 'probe') { await probe(Number(args[0]), args[1]); process.send!({ ok: true }); }
  else if (cmd === 'probeClose') {
    await Promise.all(probes.splice(0).map((ws) => new Promise<void>((r) => { ws.once('close', () => r()); ws.close(); })));
    process.send!({ ok: true });
  } else if (cmd === 'sampleStart') {
    // `all`: every allocation, collected or not (what drives the scavenges); `promoted`: what outlived the scavenges
    // (moved to the old generation, or still young at the stop), whether a mark-compact took it later or not: what
    // the full GCs are made of; but a mark-compact also collects the young generation, so young garbage that was
    // there at one is counted too (the fewer full GCs, the truer); otherwise what is still alive at the stop.
    const all = args[0] === 'all';
    const promoted = args[0] === 'promoted';
    await (await inspect()).post('HeapProfiler.startSampling', { samplingInterval: all ? 4096 : promoted ? 1024 : 256, includeObjectsCollectedByMinorGC: all, includeObjectsCollectedByMajorGC: all || promoted });
    sampling = args[0] ?? 'live';
    process.send!({ ok: true });
  } else if (cmd === 'sampleStop') {
    if (sampling !== 'promoted') (globalThis as { gc?: () => void }).gc?.();
    const { profile } = await inspector!.post('HeapProfiler.stopSampling');
    writeFileSync(args[0], JSON.stringify(profile));
    process.send!({ ok: true });
  } else if (cmd === 'quit') {
    // The VAD's thread is stopped first: onnxruntime aborts the process if its thread is torn down mid-run by exit.
    void server.close().then(() => SileroVad.shutdown()).finally(() => { rmSync(dataDir, { recursive: true, force: true }); process.exit(0); });
  }
});
process.stdout.write(`${JSON.stringify({ port: server.port, botId: 'bot_bench' })}\n`);
