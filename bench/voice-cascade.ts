/**
 * Cascade voice benchmark (issue 20, Performance), `bench/voice.ts --mode=cascade`: N concurrent cascade sessions,
 * each a widget on the chat socket sending 16 kHz 20 ms frames in real time, looping over one visitor's cycle
 * (espeak-ng speech made at run time, so Silero VAD on the server hears speech, then silence). The server detects
 * the end of the turn, sends the turn to speech to text, the words to the brain, its first sentence to speech, and
 * relays the audio; the fakes (bench/voice-cascade-fake.ts, their own process) answer each with a fixed time.
 *
 *   through the server = first reply audio frame at the widget - send time of the turn's last speech frame
 *   direct             = the same three provider calls made by a client itself (bench/voice-cascade-clients.ts)
 *   server-added       = through the server - the VAD's end-of-turn silence (hangover, 800 ms) - direct
 * Both populations stay connected and take turns in windows (direct, server, ...: a cycle to settle, WINDOW_S
 * recorded, 2 s to drain), so a machine whose load changes weighs on both alike. Also: the server's event-loop
 * delay and CPU in its windows (all threads, the main thread, and the threads started by the first voice session:
 * the VAD's worker and its model's), and memory per session (after a full GC; N sessions live - the same N sockets
 * with their conversations before voice).
 *
 *   npx tsx bench/voice.ts [sessions=200] [seconds=24] --mode=cascade [--window=12] [--cycle=6000] [--stt=100] [--brain=150] [--tts=100] [--tsx] [--pin] [--turns]
 *
 * --turns: turn-taking (issue 35). The visitors say recorded utterances, finished ones and ones with a pause
 * mid-sentence ("I want to… [1 s] book a table for two": espeak-ng's parts with silence put between them), and the
 * server's windows alternate between adaptive end of turn and the old fixed 0.8 s pause (bench/voice-server.ts
 * turnRule), so both are measured in the same run against the same direct baseline. Speech to text hears each segment
 * by its length (the fake's catalogue). Reported per rule: end of speech -> first reply audio minus the providers' own
 * time (direct p50), and cut-offs: the server ending the turn while an utterance was still being said.
 *
 * Results are kept in docs/performance.md (## Voice relay, Cascade voice).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPrivately } from './build.js';
import { startChild } from './child.js';
import { CascadeDirect, CascadeWidget, cycleFrames, IN_RATE, recorder } from './voice-cascade-clients.js';
import { spread, VOICE_SERVER_ENTRIES, type Spread } from './voice-wire.js';
import { openAll } from './voice-clients.js';
import { envelope } from './voice-cascade-hearing.js';
import { loopDelay } from './loop-delay.js';
import { silentPcm, spokenPcm } from '../test/helpers/spoken.js';
import { SileroVad } from '../src/providers/cascade/silero.js';
import { TurnDetector } from '../src/providers/cascade/turn-detector.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name: string, dflt: number) => { const a = process.argv.find((x) => x.startsWith(`--${name}=`)); return a ? Number(a.split('=')[1]) : dflt; };
const N = Math.max(1, Math.min(Number(args[0]) || 200, 1000));
const SECONDS = Math.max(1, Math.min(Number(args[1]) || 24, 300));
const WINDOW_S = Math.max(2, Math.min(flag('window', 12), 120));
const WINDOWS = Math.ceil(SECONDS / WINDOW_S);
const TURNS = process.argv.includes('--turns');
const CYCLE_MS = Math.max(3000, flag('cycle', TURNS ? 8000 : 6000));
const STT_MS = flag('stt', 100), BRAIN_MS = flag('brain', 150), TTS_MS = flag('tts', 100);
/** The turn detector's end-of-turn silence (src/providers/cascade/turn-detector.ts, TURN_DEFAULTS.hangoverMs). */
const HANGOVER_MS = 800;
const TSX = process.argv.includes('--tsx');
const PIN = process.argv.includes('--pin');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const deadline = setTimeout(() => { console.error('cascade voice bench: cut off after 15 minutes'); process.exit(1); }, 900_000);
deadline.unref();

interface Mem { rss: number; heapUsed: number; external: number; arrayBuffers: number }

/** espeak-ng's words, its quiet ends cut off, so the last frame sent is speech. */
function visitorSpeech(text = 'What are your opening hours on Saturday?'): Buffer {
  const pcm = spokenPcm(text, IN_RATE);
  let first = 0, last = pcm.length / 2 - 1;
  while (first < last && Math.abs(pcm.readInt16LE(first * 2)) < 300) first++;
  while (last > first && Math.abs(pcm.readInt16LE(last * 2)) < 300) last--;
  return pcm.subarray(first * 2, (last + 1) * 2);
}
const speech = visitorSpeech();
const cycle = cycleFrames(speech, CYCLE_MS);

/**
 * --turns: what the visitors say. Finished utterances, and utterances with a pause mid-sentence (silence of that many
 * ms put between espeak-ng's two parts); each part ends with the words speech to text hears for it.
 */
const UTTERANCES: Array<{ parts: string[]; pauseMs?: number }> = [
  { parts: ['What are your opening hours on Saturday?'] },
  { parts: ['Do you deliver to the city centre?'] },
  { parts: ['I would like to book a table for four people.'] },
  { parts: ['Can I pay by card?'] },
  { parts: ['I want to', 'book a table for two.'], pauseMs: 1000 },
  { parts: ['My order number is', 'four five six seven.'], pauseMs: 900 },
  { parts: ['Can I have the', 'vegetarian menu please?'], pauseMs: 1200 },
  { parts: ['I was wondering whether', 'you are open on Sunday.'], pauseMs: 700 },
  { parts: ['And also', 'do you have gluten free bread?'], pauseMs: 1100 },
  { parts: ['I would like', 'two coffees and a croissant.'], pauseMs: 1000 },
];
const said = UTTERANCES.map((u) => {
  const parts = u.parts.map((p) => visitorSpeech(p.replace(/[.?!]$/, '')));
  const pcm = parts.length === 1 ? parts[0] : Buffer.concat([parts[0], silentPcm(u.pauseMs!), parts[1]]);
  return { texts: u.parts, parts, pcm, kind: u.pauseMs ? 'paused' : 'finished', cycle: cycleFrames(pcm, CYCLE_MS) };
});
/** What speech to text hears, by the length of the speech in the audio: every part, and every utterance whole. */
const catalogue = said.flatMap((u) => [
  ...u.parts.map((p, i) => ({ text: u.texts[i], env: envelope(p, IN_RATE) })),
  ...(u.parts.length > 1 ? [{ text: u.texts.join(' '), env: envelope(u.pcm, IN_RATE) }] : []),
]);
const cataloguePath = join(mkdtempSync(join(tmpdir(), 'sc-turns-')), 'catalogue.json');
writeFileSync(cataloguePath, JSON.stringify(catalogue));

// The turn the server sends to speech to text: 300 ms before speech, the speech, 160 ms after (TURN_DEFAULTS).
const turnPcm = Buffer.concat([silentPcm(300), speech, silentPcm(160)]);

/**
 * Where the VAD ends the turn in audio time, on this very audio (no clock involved): ms after the last speech sample,
 * averaged over 8 alignments of its 32 ms frames (a live session's frames fall anywhere). The part of the server's
 * addition that is the model's judgement, not the server's speed.
 */
async function vadDecisionMs(): Promise<number> {
  const vad = await SileroVad.shared();
  const ends: number[] = [];
  for (let k = 0; k < 8; k++) {
    const lead = silentPcm(k * 4 + 500);
    const audio = Buffer.concat([lead, speech, silentPcm(2000)]);
    const ended = await new Promise<number>((resolve, reject) => {
      const d: TurnDetector = new TurnDetector(vad, { onSpeechStart() {}, onTurn: () => resolve(d.judgedMs), onError: reject });
      for (let off = 0; off < audio.length; off += 640) d.push(audio.subarray(off, off + 640));
      setTimeout(() => reject(new Error('the VAD did not end the turn')), 20_000);
    });
    ends.push(ended - (lead.length + speech.length) / 32);
  }
  await SileroVad.shutdown();
  return ends.reduce((a, b) => a + b, 0) / ends.length;
}
const vadEnds = await vadDecisionMs();

const built = TSX ? false : await buildPrivately(VOICE_SERVER_ENTRIES);
const fake = await startChild('voice-cascade-fake.ts', [String(STT_MS), String(BRAIN_MS), String(TTS_MS), ...(TURNS ? [cataloguePath] : [])]);
const fakeUrl = `http://127.0.0.1:${fake.ready.port as number}/v1`;
const server = await startChild('voice-server.ts', [fakeUrl, String(N), '--mode=cascade'], ['--expose-gc', ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [])], built);
if (PIN) {
  for (const pid of [fake.proc.pid, process.pid, server.proc.pid]) execFileSync('taskset', ['-a', '-p', '-c', '1', String(pid)]);
  execFileSync('taskset', ['-p', '-c', '0', String(server.proc.pid)]);
}
const url = `ws://127.0.0.1:${server.ready.port as number}/widget/v1/chat?botId=${server.ready.botId}`;
const ms = (x: number) => x.toFixed(1);
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const load0 = loadavg()[0];

try {
  console.log(`cascade voice bench: ${N} sessions, ${WINDOWS} windows of ${WINDOW_S} s recorded per path; each visitor says ${(speech.length / 32).toFixed(0)} ms of espeak-ng speech every ${CYCLE_MS} ms (16 kHz, 20 ms frames, real time); fakes: speech to text ${STT_MS} ms, the brain's first words ${BRAIN_MS} ms, speech's first audio ${TTS_MS} ms; server${TSX ? ' (tsx)' : ' (built)'}, fakes and clients in separate processes${PIN ? ', server main thread pinned to CPU 0' : ''}`);
  const direct = Array.from({ length: N }, () => new CascadeDirect(fakeUrl, turnPcm, CYCLE_MS, 'You are the assistant of a bakery. '.repeat(20)));
  const ip = (i: number) => `10.9.${(i >> 8) & 255}.${i & 255}`;
  const widgets = await openAll(N, (i) => TURNS ? CascadeWidget.open(url, ip(i), said[i % said.length].cycle, said[i % said.length].kind) : CascadeWidget.open(url, ip(i), cycle));
  await openAll(N, (i) => widgets[i].say('hello'));
  await sleep(3000);
  await server.call('markThreads');
  const noVoice = await server.call<Mem>('mem');
  await openAll(N, (i) => widgets[i].startVoice());

  /** One path's window: a cycle to settle, WINDOW_S recorded, 2 s for the last turns to be answered. */
  const window = async (path: 'direct' | 'server', record: boolean, rule: 'adaptive' | 'fixed' = 'adaptive') => {
    if (path === 'server' && TURNS) { recorder.rule = rule; await server.call(`turnRule ${rule}`); }
    const on = path === 'direct' ? direct.map((d) => ({ start: () => d.start(), stop: () => d.stop() })) : widgets.map((w) => w.mic);
    for (const m of on) m.start();
    await sleep(CYCLE_MS);
    if (record) {
      recorder.on = true;
      if (path === 'server') await server.call('phaseResume');
      await sleep(WINDOW_S * 1000);
      recorder.on = false;
      if (path === 'server') await server.call('phasePause');
    }
    await sleep(2000);
    for (const m of on) m.stop();
  };
  // Warm-up (not recorded): both paths once.
  await window('direct', false);
  await window('server', false);
  // One call at a time to each child: an answer is matched to the call that is waiting (bench/child.ts).
  await server.call('vad reset');
  await Promise.all([fake.call('measureStart'), server.call('phaseStart')]);
  await server.call('phasePause');
  const clientLoop = loopDelay();
  clientLoop.start();
  const clientCpu = process.cpuUsage();
  const clientT0 = performance.now();
  for (let w = 0; w < WINDOWS; w++) {
    await window('direct', true);
    await window('server', true);
    if (TURNS) await window('server', true, 'fixed');
  }
  const [f, s] = await Promise.all([fake.call<any>('measureStop'), server.call<any>('phaseStop')]);
  const vad = await server.call<{ frames: number; batches: number; waitMs: number; waitMaxMs: number }>('vad');
  const clientUsed = process.cpuUsage(clientCpu);
  const client = { loop: clientLoop.stop(), cpuPct: ((clientUsed.user + clientUsed.system) / 1000 / (performance.now() - clientT0)) * 100 };
  // Memory with the sessions live and listening.
  for (const w of widgets) w.mic.start();
  await sleep(2000);
  const withVoice = await server.call<Mem>('mem');
  await openAll(N, (i) => widgets[i].stopVoice());
  for (const w of widgets) w.ws.terminate();

  const via = spread(recorder.server), base = spread(recorder.direct);
  const stage = (xs: number[]) => { const sp = spread(xs); return `${ms(sp.p50)} / ${ms(sp.p99)}`; };
  const row = (name: string, m: Spread) => `${name.padEnd(34)} | ${ms(m.p50)} / ${ms(m.p95)} / ${ms(m.p99)} / ${ms(m.max)} | ${m.n}`;
  console.log('\nend of speech -> first reply audio (ms)  | p50 / p95 / p99 / max | turns');
  console.log(row('through the server', via));
  console.log(row('direct (the fakes called directly)', base));
  const added = (p: 'p50' | 'p95' | 'p99') => ms(via[p] - HANGOVER_MS - base[p]);
  console.log(`server-added (through - ${HANGOVER_MS} ms end-of-turn silence - direct) | ${added('p50')} / ${added('p95')} / ${added('p99')} |`);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`of which the VAD's judgement (audio time, this audio, measured apart): it ends the turn ${ms(vadEnds)} ms after the last speech sample, ${ms(vadEnds - HANGOVER_MS)} ms beyond the ${HANGOVER_MS} ms; the rest is the server's speed`);
  console.log(`server-added, means: ${ms(mean(recorder.server) - HANGOVER_MS - mean(recorder.direct))} ms`);
  console.log(`direct stages p50 / p99 ms: speech to text ${stage(recorder.stages.stt)}, brain to first sentence ${stage(recorder.stages.brain)}, speech to first audio ${stage(recorder.stages.tts)}`);
  const sessionSeconds = s.cpuPct / 100;
  console.log(`server, its windows: event-loop delay (worst window) p50 ${ms(s.loopP50)}, p99 ${ms(s.loopP99)}, max ${ms(s.loopMax)} ms; CPU ${s.cpuPct.toFixed(0)} % of a core (main thread ${s.mainCpuPct.toFixed(0)} %, VAD worker and model threads ${s.lateCpuPct.toFixed(0)} %); GC pauses ${s.gcCount}, longest ${ms(s.gcMax)} ms`);
  console.log(`VAD: ${vad.frames} frames judged by the model in ${vad.batches} batches (${(vad.frames / Math.max(1, vad.batches)).toFixed(1)} a batch); a frame waited ${ms(vad.waitMs / Math.max(1, vad.frames))} ms on average for its answer, ${ms(vad.waitMaxMs)} ms at most (quiet frames skip the model)`);
  console.log(`CPU per session: ${(sessionSeconds * 1000 / N).toFixed(2)} ms a second in all, of which the VAD's threads ${((s.lateCpuPct / 100) * 1000 / N).toFixed(2)} ms (the main thread's share includes relaying, the turn detector's gate and the provider calls)`);
  console.log(`fakes: loop p99 ${ms(f.loop.p99)} ms, CPU ${f.cpuPct.toFixed(0)} %; clients: loop p99 ${ms(client.loop.p99)} ms, max ${ms(client.loop.max)} ms, CPU ${client.cpuPct.toFixed(0)} %, ${recorder.skipped} ticks skipped (over all windows)`);
  const per = (k: keyof Mem) => kb((withVoice[k] - noVoice[k]) / N);
  console.log(`memory per session (KB, after a full GC; N listening sessions - the same sockets and conversations before voice): heapUsed ${per('heapUsed')}, external ${per('external')} (arrayBuffers ${per('arrayBuffers')}), RSS ${per('rss')}`);
  console.log(`machine load average (1 min) at the start ${load0.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)} (2 cores)`);
  console.log('targets (issue 20, 200 sessions): server-added p99 <= 50 ms; server event-loop delay p99 <= 10 ms');
  if (TURNS) {
    const providers = base.p50;
    console.log(`\nturn-taking (--turns): end of speech -> first reply audio (ms), p50 / p95 / p99 | minus the providers' own time (direct p50 ${ms(providers)} ms) at p50 | cut-offs (the turn taken while the utterance was still being said) of utterances said`);
    for (const key of ['adaptive finished', 'fixed finished', 'adaptive paused', 'fixed paused']) {
      const t = recorder.turns[key];
      if (!t) continue;
      const d = spread(t.delays);
      console.log(`${key.padEnd(18)} | ${ms(d.p50)} / ${ms(d.p95)} / ${ms(d.p99)} (${d.n} replies) | ${ms(d.p50 - providers)} | ${t.cutoffs} of ${t.cycles}`);
    }
    const all = (rule: string) => spread(['finished', 'paused'].flatMap((k) => recorder.turns[`${rule} ${k}`]?.delays ?? []));
    console.log(`all utterances, minus the providers' own time at p50: adaptive ${ms(all('adaptive').p50 - providers)} ms, fixed 0.8 s pause ${ms(all('fixed').p50 - providers)} ms (target: adaptive <= 450 ms, no more cut-offs than the fixed pause)`);
    console.log(`brain requests ${f.chats}, of which retracted (a speculative reply the visitor talked on over) ${f.chatsAborted}; transcriptions that matched no catalogue entry ${f.unmatched}`);
  }
  if (recorder.problems.size) console.log(`\nproblems seen (times, what):\n${[...recorder.problems].map(([what, n]) => `  ${n} x ${what}`).join('\n')}`);
} finally {
  await Promise.all([server, fake].map((c) => new Promise<void>((r) => { c.proc.once('exit', () => r()); c.proc.send({ cmd: 'quit' }); })));
}
