/**
 * Voice relay benchmark (issue 19, Performance): N concurrent voice sessions, each a widget on the chat socket
 * sending 20 ms microphone frames in real time while a fake engine holds a conversation with it (the visitor
 * speaks LISTEN ms, the agent answers REPLY ms of 20 ms chunks in real time), against the same clients talking to
 * the same fake engine directly, measured in the same run.
 *
 * Three processes, as bench/chat.ts: the real server (bench/voice-server.ts, built and run as `npm start` runs
 * it; --tsx: the sources), the fake engine (bench/voice-fake.ts), and the clients (this process).
 *
 *   upstream   = frame read by the engine - frame sent by the client (the stamp is in the frame's first PCM bytes)
 *   downstream = chunk received by the client - chunk written by the engine
 *   added      = through the server - direct (the direct client encodes and decodes as the server would)
 * All stamps are wall-clock (performance.timeOrigin + performance.now()); an offset between processes cancels.
 * Both populations stay connected and take turns in windows (direct, server, direct, ...: WINDOW_S recorded after
 * SETTLE_S each), so a machine whose load changes by the minute weighs on both paths alike; the fake answers only
 * clients whose microphones are on.
 *
 * Also: the server's event-loop delay and CPU during its windows, and its memory per voice session (after a full
 * GC): N sessions live minus the same N chat sockets with their conversations (opened by a typed message, the fake
 * answers the bot's text brain too) before any voice, and the share of the engine sockets themselves (N bare ws
 * sockets to the fake, opened by the server process, against the same point after the sessions ended).
 *
 *   npx tsx bench/voice.ts [sessions=200] [seconds=15] --mode=cascade ...   cascade voice instead (bench/voice-cascade.ts)
 *   npx tsx bench/voice.ts [sessions=200] [seconds=15] [--listen=1000] [--reply=2000] [--window=5] [--warm=5] [--pin] [--tsx] [--prof] [--heap-sample[=all]]
 *   seconds: recorded per path, in windows of --window seconds.
 *   --no-ahead: the server parses every engine frame with ws (the engine's audio deltas are otherwise read ahead of it).
 *   --pin gives the server's main thread CPU 0 and puts everything else on CPU 1 (as bench/chat.ts --pin).
 *   --prof writes a CPU profile of the server over the windows to bench/.prof/voice-<n>.cpuprofile
 *   (`node bench/prof-top.mjs <file>`); --heap-sample a heap profile of what the live sessions hold
 *   (bench/.prof/voice-<n>-live.heapprofile, `node bench/heap-top.mjs <file>`); --heap-sample=all of every allocation
 *   while they run (what the scavenges are made of), and prints the bytes allocated per frame relayed;
 *   --heap-sample=promoted of what outlived the scavenges once the sessions had started (what the mark-compacts
 *   are made of).
 *   BENCH_SERVER_FLAGS passes Node flags to the server (after npm start's).
 *
 * Results are kept in docs/performance.md (## Voice relay).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPrivately } from './build.js';
import { startChild } from './child.js';
import { loopDelay } from './loop-delay.js';
import { Direct, openAll, recorder, relayed, Widget } from './voice-clients.js';
import { MODEL, spread, VOICE_SERVER_ENTRIES, type Spread } from './voice-wire.js';

// Cascade voice (speech to text, the brain, speech; Silero VAD on the server) has a bench of its own.
if (process.argv.includes('--mode=cascade')) { await import('./voice-cascade.js'); process.exit(0); }

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name: string, dflt: number) => { const a = process.argv.find((x) => x.startsWith(`--${name}=`)); return a ? Number(a.split('=')[1]) : dflt; };
const N = Math.max(1, Math.min(Number(args[0]) || 200, 1000));
const SECONDS = Math.max(1, Math.min(Number(args[1]) || 15, 120));
const WINDOW_S = Math.max(1, Math.min(flag('window', 5), 60));
const WINDOWS = Math.ceil(SECONDS / WINDOW_S);
/** Unrecorded seconds at the start of each window: the other path's last replies end, this one's begin. */
const SETTLE_S = 2;
const LISTEN_MS = Math.max(20, Math.min(flag('listen', 1000), 60_000));
const REPLY_MS = Math.max(20, Math.min(flag('reply', 2000), 60_000));
const WARM_S = Math.max(0, Math.min(flag('warm', 5), 60));
/** Sockets that hold a voice session through the server before anything is measured (JIT warm-up). */
const WARM_SOCKETS = Math.min(N, 50);
const TSX = process.argv.includes('--tsx');
const PROF = process.argv.includes('--prof');
const PIN = process.argv.includes('--pin');
/** --heap-sample: what the live sessions hold; --heap-sample=all: every allocation while they run. */
const HEAP = process.argv.find((a) => a.startsWith('--heap-sample'))?.split('=')[1] ?? (process.argv.includes('--heap-sample') ? 'live' : null);
const here = dirname(fileURLToPath(import.meta.url));
const profDir = join(here, '.prof');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Every step waits at most this long, so a stuck run ends instead of hanging.
const deadline = setTimeout(() => { console.error('voice bench: cut off after 4 minutes'); process.exit(1); }, 240_000);
deadline.unref();

/** A process's peak resident memory so far, in MB (Linux /proc). */
function peakRssMb(pid: number | undefined): string {
  try { return (Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024).toFixed(0); } catch { return '?'; }
}

/** Bytes in a sampling heap profile (the sum of its nodes' self sizes). */
function sampledBytes(file: string): number {
  const walk = (n: { selfSize: number; children: unknown[] }): number => n.selfSize + n.children.reduce<number>((s, c) => s + walk(c as typeof n), 0);
  return walk(JSON.parse(readFileSync(file, 'utf8')).head);
}

interface Mem { rss: number; heapUsed: number; external: number; arrayBuffers: number }
interface Measured { up: Spread; down: Spread }
type Mics = Array<{ mic: { start(): void; stop(): void } }>;
const clientLoop = loopDelay();

/**
 * The two paths take turns: in each window one population's microphones are on (SETTLE_S, then WINDOW_S recorded),
 * the other's off. The fake times upstream, the clients downstream; the server counts its loop and CPU in its
 * windows. The server's microphones stay on after its last window (its memory is read with sessions live).
 */
async function interleave(direct: Mics, widgets: Mics): Promise<{ direct: Measured; server: Measured; server$: any; fake$: any; client$: any }> {
  const window = async (mics: Mics, record: boolean, onServer: boolean, warmS = WINDOW_S) => {
    for (const c of mics) c.mic.start();
    await sleep((record ? SETTLE_S : warmS) * 1000);
    if (record) {
      recorder.on = true;
      await Promise.all([fake.call('recordOn'), onServer ? server.call('phaseResume') : null]);
      await sleep(WINDOW_S * 1000);
      recorder.on = false;
      await Promise.all([fake.call('recordOff'), onServer ? server.call('phasePause') : null]);
    }
  };
  const stop = (mics: Mics) => { for (const c of mics) c.mic.stop(); };
  // Warm-up windows, unrecorded.
  await window(direct, false, false, WARM_S); stop(direct);
  await window(widgets, false, true, WARM_S); stop(widgets);
  recorder.down.direct.length = 0; recorder.down.server.length = 0; clientLoop.start();
  await Promise.all([fake.call('measureStart'), server.call('phaseStart')]);
  await server.call('phasePause');
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let w = 0; w < WINDOWS; w++) {
    await window(direct, true, false); stop(direct);
    await window(widgets, true, true);
    if (w < WINDOWS - 1) stop(widgets);
  }
  const [f, s] = await Promise.all([fake.call<any>('measureStop'), server.call<any>('phaseStop')]);
  const used = process.cpuUsage(cpu);
  const client$ = { loop: clientLoop.stop(), cpuPct: ((used.user + used.system) / 1000 / (performance.now() - t0)) * 100 };
  return {
    direct: { up: f.up.direct, down: spread(recorder.down.direct) }, server: { up: f.up.server, down: spread(recorder.down.server) },
    server$: s, fake$: { loop: f.loop, cpuPct: f.cpuPct }, client$,
  };
}

// A build of its own (bench/.build/<pid>), so a build elsewhere cannot empty dist/ under the running server.
const built = TSX ? false : await buildPrivately(VOICE_SERVER_ENTRIES);
if (PROF || HEAP) mkdirSync(profDir, { recursive: true });
const fake = await startChild('voice-fake.ts', [String(LISTEN_MS), String(REPLY_MS)]);
const fakePort = fake.ready.port as number;
// A server that fails to start must not leave the fake running (it holds the bench's output open).
const server = await startChild('voice-server.ts', [`http://127.0.0.1:${fakePort}/v1`, String(N), ...(PROF ? [`--prof=${profDir}`] : []), ...(process.argv.includes('--no-ahead') ? ['--no-ahead'] : [])], ['--expose-gc', ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [])], built)
  .catch((err: unknown) => { fake.proc.kill(); throw err; });
if (PIN) {
  for (const pid of [fake.proc.pid, process.pid, server.proc.pid]) execFileSync('taskset', ['-a', '-p', '-c', '1', String(pid)]);
  execFileSync('taskset', ['-p', '-c', '0', String(server.proc.pid)]);
}
const port = server.ready.port as number;
const url = `ws://127.0.0.1:${port}/widget/v1/chat?botId=${server.ready.botId}`;
const ms = (x: number) => x.toFixed(2);
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

const load0 = loadavg()[0];
try {
  console.log(`voice bench: ${N} sessions, ${WINDOWS * WINDOW_S} s recorded per path in alternating windows of ${WINDOW_S} s after ${WARM_S} s warm-up; 20 ms frames both ways in real time; the visitor speaks ${LISTEN_MS} ms, the agent answers ${REPLY_MS} ms; server${TSX ? ' (tsx)' : ' (built)'}, fake engine and clients in separate processes${PIN ? ', server main thread pinned to CPU 0' : ''}`);

  // The direct clients: the same clients talking to the fake engine themselves.
  const direct = await openAll(N, () => Direct.open(fakePort));

  // Warm-up through the server (not measured): a few sockets hold a voice session, so the path is compiled.
  const ip = (set: number, i: number) => `10.${set}.${(i >> 8) & 255}.${i & 255}`;
  const warm = await openAll(WARM_SOCKETS, (i) => Widget.open(url, ip(8, i)));
  await openAll(WARM_SOCKETS, (i) => warm[i].say('hello'));
  await openAll(WARM_SOCKETS, (i) => warm[i].startVoice());
  for (const w of warm) w.mic.start();
  await sleep(WARM_S * 1000);
  await openAll(WARM_SOCKETS, (i) => warm[i].stopVoice());
  for (const w of warm) w.ws.terminate();

  // N sockets, each with a conversation opened by a typed message: the memory without voice.
  const widgets = await openAll(N, (i) => Widget.open(url, ip(9, i)));
  await openAll(N, (i) => widgets[i].say('hello'));
  await sleep(3000);
  const noVoice = await server.call<Mem>('mem');
  if (HEAP && HEAP !== 'promoted') await server.call(`sampleStart ${HEAP}`);
  const relayed0 = { ...relayed };
  await openAll(N, (i) => widgets[i].startVoice());
  // What is promoted while relaying, not the sessions' own state set up at the start.
  if (HEAP === 'promoted') await server.call('sampleStart promoted');
  const run = await interleave(direct, widgets);
  const withVoice = await server.call<Mem>('mem');
  for (const w of widgets) w.mic.stop();
  await Promise.all(direct.map((d) => new Promise<void>((r) => { d.ws.once('close', () => r()); d.ws.close(); })));
  if (HEAP) await server.call(`sampleStop ${join(profDir, `voice-${N}-${HEAP}.heapprofile`)}`);
  const sampledFrames = { up: relayed.up - relayed0.up, down: relayed.down - relayed0.down };
  await openAll(N, (i) => widgets[i].stopVoice());
  // The engine sockets close within their 2 s grace (src/providers/realtime-openai.ts, close).
  await sleep(3000);
  const after = await server.call<Mem>('mem');
  await server.call(`probe ${N} ws://127.0.0.1:${fakePort}/v1/realtime?model=${MODEL}`);
  const probed = await server.call<Mem>('mem');
  await server.call('probeClose');
  for (const w of widgets) w.ws.terminate();

  const s = run.server$;
  const base = run.direct, via = run.server;
  console.log(`\npath    | upstream p50 / p95 / p99 ms | downstream p50 / p95 / p99 ms | frames up / chunks down (${WINDOWS} windows of ${WINDOW_S} s)`);
  for (const [name, m] of [['direct', base], ['server', via]] as const) {
    console.log(`${name.padEnd(7)} | ${ms(m.up.p50)} / ${ms(m.up.p95)} / ${ms(m.up.p99)} | ${ms(m.down.p50)} / ${ms(m.down.p95)} / ${ms(m.down.p99)} | ${m.up.n} / ${m.down.n}`);
  }
  const added = (a: Spread, b: Spread) => `${ms(a.p50 - b.p50)} / ${ms(a.p95 - b.p95)} / ${ms(a.p99 - b.p99)}`;
  console.log(`added   | ${added(via.up, base.up)} | ${added(via.down, base.down)} |`);
  console.log(`clients: loop p99 ${ms(run.client$.loop.p99)} ms, CPU ${run.client$.cpuPct.toFixed(0)} %; fake engine: loop p99 ${ms(run.fake$.loop.p99)} ms, CPU ${run.fake$.cpuPct.toFixed(0)} % (over all windows)`);
  // The server's CPU time (all its threads) per audio frame it relayed, either way: the steadiest figure on a shared machine.
  const perFrameUs = (s.cpuPct / 100) * WINDOWS * WINDOW_S * 1e6 / (via.up.n + via.down.n);
  console.log(`server, its windows: ${s.live} sessions live; event-loop delay (worst window) p50 ${ms(s.loopP50)}, p99 ${ms(s.loopP99)}, max ${ms(s.loopMax)} ms; CPU ${s.cpuPct.toFixed(0)} % (main thread ${s.mainCpuPct.toFixed(0)} %; ${perFrameUs.toFixed(1)} µs per relayed frame); GC pauses ${s.gcCount}, ${s.gcMs.toFixed(0)} ms in all, longest ${ms(s.gcMax)} ms`);
  // V8's record of the windows' GCs (bench/gc-account.ts): figures per relayed frame that the load does not change.
  const g = s.gcAccount as import('./gc-account.js').GcAccount;
  const frames = via.up.n + via.down.n;
  console.log(`server GC, its windows: ${(g.youngAllocated / frames).toFixed(0)} young bytes allocated per relayed frame; ${g.scavenges} scavenges (${(g.scavenges * 10_000 / frames).toFixed(1)} per 10,000 frames), pause p50 ${ms(g.scavengeMs.p50)} / p99 ${ms(g.scavengeMs.p99)} / max ${ms(g.scavengeMs.max)} ms, ${ms(g.scavengeMs.sum * 1000 / frames)} µs per frame; survivors per scavenge ${kb(g.survivedMean)} KB mean, ${kb(g.survivedMax)} KB max (${kb(g.survivedMean / N)} KB a session); promoted ${kb(g.promoted / frames * 1000)} KB per 1,000 frames; full GCs ${g.full} (${g.fullMs.toFixed(0)} ms); new space ${s.newSpaceMb.toFixed(1)} MB at the end${Object.entries(g.other).map(([k, o]) => `, ${k} ${o.n} (${o.ms.toFixed(0)} ms)`).join('')}; engine audio deltas read ahead of ws ${s.deltaReads.ahead}, through ws ${s.deltaReads.ws} (whole run)`);
  if (HEAP === 'all' || HEAP === 'promoted') {
    // The sampling profile's sizes are V8's estimates of all bytes allocated (samples scaled by their odds).
    const total = sampledBytes(join(profDir, `voice-${N}-${HEAP}.heapprofile`));
    const frames = sampledFrames.up + sampledFrames.down;
    const what = HEAP === 'all' ? 'allocations' : 'allocations that outlived the scavenges';
    console.log(`server ${what} while sampling: ${(total / 1e6).toFixed(1)} MB for ${sampledFrames.up} frames up + ${sampledFrames.down} down = ${(total / frames / 1024).toFixed(2)} KB per relayed frame`);
  }
  console.log(`server RSS: ${(withVoice.rss / 1048576).toFixed(0)} MB with the sessions live (after a full GC), peak ${peakRssMb(server.proc.pid)} MB (VmHWM)`);
  console.log(`machine load average (1 min) at the start ${load0.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)} (2 cores)`);
  const per = (a: Mem, b: Mem, k: keyof Mem) => kb((a[k] - b[k]) / N);
  console.log('memory per session (KB, after a full GC) | heapUsed | external (arrayBuffers) | RSS');
  console.log(`N sessions live - the same N sockets and their conversations before voice | ${per(withVoice, noVoice, 'heapUsed')} | ${per(withVoice, noVoice, 'external')} (${per(withVoice, noVoice, 'arrayBuffers')}) | ${per(withVoice, noVoice, 'rss')}`);
  console.log(`of which the engine socket alone (N bare ws sockets to the fake) | ${per(probed, after, 'heapUsed')} | ${per(probed, after, 'external')} (${per(probed, after, 'arrayBuffers')}) | ${per(probed, after, 'rss')}`);
  console.log(`beyond the engine socket | ${kb((withVoice.heapUsed - noVoice.heapUsed - probed.heapUsed + after.heapUsed) / N)} | ${kb((withVoice.external - noVoice.external - probed.external + after.external) / N)} | ${kb((withVoice.rss - noVoice.rss - probed.rss + after.rss) / N)}`);
  // What the ended sessions left behind (also code compiled meanwhile): a leak would show here, growing with N and time.
  console.log(`after the sessions ended: heapUsed ${kb((after.heapUsed - noVoice.heapUsed) / N)} KB a session above the figure before voice`);
  console.log('targets (issue 19, 200 sessions): added p99 <= 5 ms each direction; server event-loop delay p99 <= 10 ms; <= 64 KB a session beyond the engine socket');
  if (recorder.problems.size) console.log(`\nproblems seen (times, what):\n${[...recorder.problems].map(([what, n]) => `  ${n} x ${what}`).join('\n')}`);
} finally {
  await Promise.all([server, fake].map((c) => new Promise<void>((r) => { c.proc.once('exit', () => r()); c.proc.send({ cmd: 'quit' }); })));
}
