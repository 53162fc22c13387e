/**
 * Speech to text in cascade voice, uploaded vs streamed (issue 20), in one run: N hands-free cascade engines per path
 * hear espeak-ng speech in real time (20 ms frames at 16 kHz, Silero VAD on this process's worker), half with
 * whisper-1 (the finished turn uploaded as WAV), half with gpt-4o-mini-transcribe (the turn streamed to a Realtime
 * transcription session while it is spoken, a commit at its end). Both go to the cascade bench's fake provider in its
 * own process (bench/voice-cascade-fake.ts), which takes the same STT_MS to answer either way, so what differs is what
 * the server does after the end of the turn: build and send the upload, or send a commit.
 *
 *   end of turn -> final words = the engine's user_transcript - its user_turn (the VAD has ended the turn)
 *   bytes sent after the end of the turn: the upload's WAV (measured) or the commit event (its frame)
 *
 *   npx tsx bench/voice-cascade-stt.ts [sessions=20] [seconds=24] [--stt=100]
 *
 * Results are kept in docs/performance.md (## Voice relay, Cascade voice: streamed speech to text).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CascadeEngine } from '../src/providers/cascade/engine.js';
import { SileroVad } from '../src/providers/cascade/silero.js';
import { createProvider } from '../src/providers/index.js';
import { PcmResampler } from '../src/providers/pcm-resample.js';
import { appendFrame } from '../src/providers/realtime-openai-audio.js';
import { silentPcm, spokenPcm } from '../test/helpers/spoken.js';
import { startChild } from './child.js';
import { spread } from './voice-wire.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name: string, dflt: number) => { const a = process.argv.find((x) => x.startsWith(`--${name}=`)); return a ? Number(a.split('=')[1]) : dflt; };
const N = Math.max(1, Math.min(Number(args[0]) || 20, 200));
const SECONDS = Math.max(5, Math.min(Number(args[1]) || 24, 300));
const STT_MS = flag('stt', 100);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const PATHS = { upload: 'whisper-1', stream: 'gpt-4o-mini-transcribe' } as const;
type Path = keyof typeof PATHS;
/** What a commit costs on the wire: the event, in a masked client frame (2-byte header + 4-byte key). */
const COMMIT_BYTES = JSON.stringify({ type: 'input_audio_buffer.commit' }).length + 6;

const fake = await startChild('voice-cascade-fake.ts', [String(STT_MS), '150', '100']);
const baseUrl = `http://127.0.0.1:${fake.ready.port as number}/v1`;
const speech = Buffer.concat([spokenPcm('What are your opening hours on Saturday?'), silentPcm(1800)]);
const results: Record<Path, { ms: number[]; uploaded: number[]; problems: string[] }> = { upload: { ms: [], uploaded: [], problems: [] }, stream: { ms: [], uploaded: [], problems: [] } };

function session(path: Path): CascadeEngine {
  const adapter = () => createProvider({ id: `b_${path}`, kind: 'openai', apiKey: 'sk-bench', baseUrl }, { maxRetries: 0 });
  const stt = adapter();
  const transcribe = stt.transcribe!.bind(stt);
  stt.transcribe = (audio, opts) => { if (recording) results[path].uploaded.push(audio.length); return transcribe(audio, opts); };
  const ended = new Map<string, number>();
  return new CascadeEngine(
    {
      stt: { adapter: stt, label: path, model: PATHS[path], language: 'en' },
      brain: { adapter: adapter(), label: 'brain', model: 'gpt-4o-mini', effort: 'low', temperature: null, maxToolRounds: 3 },
      tts: { adapter: adapter(), label: 'tts', model: 'gpt-4o-mini-tts', voice: 'coral', speed: 1, style: '' },
    },
    { model: 'gpt-4o-mini', voice: '', instructions: 'You are the assistant of a bakery.', tools: [], language: 'en', turnDetection: { type: 'server_vad', eagerness: 'auto' }, bargeIn: true, maxOutputTokens: 2048, history: [] },
    (e) => {
      if (e.type === 'user_turn') ended.set(e.itemId, performance.now());
      else if (e.type === 'user_transcript') {
        const t0 = ended.get(e.itemId);
        ended.delete(e.itemId);
        if (recording && t0 !== undefined) results[path].ms.push(performance.now() - t0);
      } else if (e.type === 'error' && recording) results[path].problems.push(e.message);
    },
    { allowPrivateNetwork: true },
  );
}

let recording = false;
const engines = (['upload', 'stream'] as Path[]).flatMap((path) => Array.from({ length: N }, () => ({ path, engine: session(path) })));
await Promise.all(engines.map((s) => s.engine.connect()));
const load0 = loadavg()[0];
console.log(`speech to text, uploaded vs streamed: ${N} hands-free cascade sessions per path, ${(speech.length / 32 / 1000).toFixed(1)} s cycles of espeak-ng speech in real time for ${SECONDS} s; the fake answers either way after ${STT_MS} ms`);
// Each session starts at its own point in the cycle, so turns end spread over time (as visitors' do).
const frames = speech.length / 640;
const offsets = engines.map((_, i) => Math.floor((i * frames) / engines.length));
let tick = 0;
const t0 = performance.now();
const warmUpMs = (speech.length / 32) + 1000;
while (performance.now() - t0 < SECONDS * 1000 + warmUpMs) {
  recording = performance.now() - t0 > warmUpMs;
  for (let i = 0; i < engines.length; i++) {
    const at = ((tick + offsets[i]) % frames) * 640;
    engines[i].engine.appendAudio(speech.subarray(at, at + 640));
  }
  tick++;
  // Real time: the next frame is due 20 ms after this one was.
  await sleep(Math.max(0, t0 + tick * 20 - performance.now()));
}
await sleep(1500);
recording = false;
for (const s of engines) s.engine.close();
await SileroVad.shutdown();

const f = (x: number) => x.toFixed(1);
console.log('\nend of turn -> final words (ms)  | p50 / p95 / p99 / max | turns | bytes sent after the end of the turn');
for (const path of ['upload', 'stream'] as Path[]) {
  const s = spread(results[path].ms);
  const bytes = path === 'upload' ? `${f(results[path].uploaded.reduce((a, b) => a + b, 0) / Math.max(1, results[path].uploaded.length) / 1024)} KB (the WAV, mean)` : `${COMMIT_BYTES} B (the commit)`;
  console.log(`${`${path} (${PATHS[path]})`.padEnd(32)} | ${f(s.p50)} / ${f(s.p95)} / ${f(s.p99)} / ${f(s.max)} | ${s.n} | ${bytes}`);
}
const up = spread(results.upload.ms), st = spread(results.stream.ms);
console.log(`streamed / uploaded: p50 ${(st.p50 / up.p50).toFixed(2)}, p99 ${(st.p99 / up.p99).toFixed(2)}; beyond the fake's ${STT_MS} ms: uploaded p50 ${f(up.p50 - STT_MS)} ms, streamed p50 ${f(st.p50 - STT_MS)} ms`);
for (const path of ['upload', 'stream'] as Path[]) if (results[path].problems.length) console.log(`problems (${path}): ${results[path].problems.length}, first: ${results[path].problems[0]}`);
// What streaming costs the server per second of speech, in CPU time (not load-bound): resampling 16 -> 24 kHz and
// writing each append as a WebSocket frame, as src/providers/openai-realtime-stt.ts does for every 32 ms frame.
{
  const resampler = new PcmResampler(16_000, 24_000);
  const frame = speech.subarray(0, 1024);
  const seconds = 200;
  const cpu = process.cpuUsage();
  let bytes = 0;
  for (let i = 0; i < (seconds * 1000) / 32; i++) bytes += appendFrame(resampler.push(frame)).length;
  const used = process.cpuUsage(cpu);
  console.log(`streaming's own work: ${f((used.user + used.system) / seconds)} µs of CPU per second of speech (resample + append frames), ${f(bytes / seconds / 1024)} KB a second on the wire`);
}
console.log(`machine load average (1 min) at the start ${load0.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)} (2 cores)`);
await new Promise<void>((r) => { fake.proc.once('exit', () => r()); fake.proc.send({ cmd: 'quit' }); });
