// bench/vad.ts: what server-side turn detection (Silero VAD v5 on onnxruntime-node, src/providers/cascade/) costs.
// N sessions each feed espeak-ng speech with pauses (about half speech, as in a conversation) in real time, 20 ms
// frames at 16 kHz, out of phase with each other, through the TurnDetector (quiet frames skip the model, the others
// are batched across sessions). Reported: CPU per session (ms of CPU per second of audio), the whole run's share of
// one core, event-loop delay, batch sizes, and the same frames run one by one as the baseline.
// `node --import tsx bench/vad.ts [sessions=200] [seconds=10]`.
import { SileroVad, VadStream, FRAME_SAMPLES } from '../src/providers/cascade/silero.js';
import { TurnDetector } from '../src/providers/cascade/turn-detector.js';
import { silentPcm, spokenPcm } from '../test/helpers/spoken.js';
import { loopDelay } from './loop-delay.js';

const sessions = Number(process.argv[2] ?? 200);
const seconds = Number(process.argv[3] ?? 10);
const FRAME_BYTES = 640;

// One visitor's side of a conversation: a question, a pause to think, more words, then listening.
const speech = Buffer.concat([
  spokenPcm('Hello, I would like to know <break time="500ms"/> your opening hours on Saturday, please.'),
  silentPcm(2500),
  spokenPcm('And do you deliver to the city centre?'),
  silentPcm(3000),
]);
const speechShare = 1 - (5500 * 32) / speech.length;

const vad = await SileroVad.shared();

// Baseline: the same model, one frame at a time (no batching, no gate).
{
  const s = new VadStream();
  const frame = new Float32Array(FRAME_SAMPLES);
  const n = 2000;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const off = (i * FRAME_SAMPLES * 2) % (speech.length - FRAME_SAMPLES * 2);
    for (let k = 0; k < FRAME_SAMPLES; k++) frame[k] = speech.readInt16LE(off + k * 2) / 32768;
    await vad.probability(s, frame);
  }
  const cpu = process.cpuUsage(cpu0);
  const perFrame = (cpu.user + cpu.system) / 1000 / n;
  console.log(`one frame at a time (batches of one): ${perFrame.toFixed(3)} ms CPU a frame = ${(perFrame * 31.25).toFixed(1)} ms CPU per session-second; 200 sessions would take ${((perFrame * 31.25 * 200) / 1000).toFixed(2)} cores`);
}

// The machine's own event-loop delay right now (other processes share its two cores), for comparison.
const idle = loopDelay();
idle.start();
await new Promise((r) => setTimeout(r, 3000));
const idleDelay = idle.stop();

let turns = 0;
let starts = 0;
const detectors = Array.from({ length: sessions }, () => new TurnDetector(vad, {
  onSpeechStart: () => { starts++; },
  onTurn: () => { turns++; },
  onError: (err) => { console.error(err); process.exit(1); },
}));
// Each session starts at its own place in the recording and its own phase within the 20 ms frame.
const offsets = detectors.map((_, i) => Math.floor((i / sessions) * (speech.length / FRAME_BYTES)) * FRAME_BYTES);
const phase = detectors.map((_, i) => (i / sessions) * 20);
const sent = detectors.map(() => 0);

const stats0 = { ...vad.stats };
const loop = loopDelay();
loop.start();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const now = performance.now() - t0;
    if (now >= seconds * 1000) { clearInterval(timer); resolve(); return; }
    detectors.forEach((d, i) => {
      while (phase[i] + sent[i] * 20 <= now) {
        const at = (offsets[i] + sent[i] * FRAME_BYTES) % (speech.length - FRAME_BYTES);
        d.push(speech.subarray(at, at + FRAME_BYTES));
        sent[i]++;
      }
    });
  }, 5);
});
// Every frame fed is judged before the CPU is read (on a busy machine the model thread trails the audio).
const fed = () => sent.reduce((n, k) => n + k, 0) * 20;
while (detectors.reduce((n, d) => n + d.judgedMs, 0) < fed() - sessions * 64) await new Promise((r) => setTimeout(r, 20));
const cpu = process.cpuUsage(cpu0);
const wall = (performance.now() - t0) / 1000;
const lagMs = wall * 1000 - seconds * 1000;
const delay = loop.stop();
const cpuMs = (cpu.user + cpu.system) / 1000;
const frames = vad.stats.frames - stats0.frames;
const batches = vad.stats.batches - stats0.batches;
const gated = detectors.reduce((n, d) => n + d.stats.gated, 0);
const inferred = detectors.reduce((n, d) => n + d.stats.inferred, 0);
console.log(`${sessions} sessions, ${seconds} s of audio each (${(speechShare * 100).toFixed(0)}% speech in the recording):`);
console.log(`  CPU ${(cpuMs / wall / 10).toFixed(1)}% of one core (feeding, gate, batches, model) = ${(cpuMs / sessions / seconds).toFixed(2)} ms CPU per session-second`);
console.log(`  model runs: ${batches} batches, ${(frames / Math.max(1, batches)).toFixed(1)} frames a batch; ${((gated / (gated + inferred)) * 100).toFixed(0)}% of frames were quiet and skipped the model`);
console.log(`  the model's thread finished ${lagMs.toFixed(0)} ms after the audio ended`);
console.log(`  event-loop delay p50 ${delay.p50.toFixed(2)} ms, p99 ${delay.p99.toFixed(2)} ms, max ${delay.max.toFixed(2)} ms (idle, just before: p50 ${idleDelay.p50.toFixed(2)}, p99 ${idleDelay.p99.toFixed(2)}, max ${idleDelay.max.toFixed(2)})`);
console.log(`  turns found: ${turns} (${starts} speech starts), ${(turns / sessions / (seconds / 11.3)).toFixed(2)} per session per pass of the recording`);
await SileroVad.shutdown();
