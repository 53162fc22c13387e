// bench/cascade.ts: the delay the cascade engine itself adds between its stages, with N sessions answering a turn
// at the same moment against the fake OpenAI server (speech to text, brain and speech all kind B, on loopback).
// Measured per turn, from hooks on the adapters (the providers' own time is not counted):
//   heard -> asked: the transcript came back -> the brain was asked;
//   written -> spoken: the delta that completed the first sentence arrived -> its speech was asked for;
//   made -> sent: the first PCM of that speech arrived -> the engine emitted it (what the voice session relays).
// `node --import tsx bench/cascade.ts [sessions=200]`.
import { CascadeEngine } from '../src/providers/cascade/engine.js';
import { createProvider } from '../src/providers/index.js';
import type { ProviderAdapter } from '../src/providers/types.js';
import { startFakeOpenAI } from '../test/fakes/openai.js';
import { loopDelay } from './loop-delay.js';

const sessions = Number(process.argv[2] ?? 200);
const fake = await startFakeOpenAI();
fake.speech.chunkIntervalMs = 20;
const REPLY = 'Sure, we are open until six today. Is there anything else I can help you with?';
const adapter = (): ProviderAdapter => createProvider({ id: 'b', kind: 'openai', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, { maxRetries: 0 });

const samples = { heardToAsked: [] as number[], writtenToSpoken: [] as number[], madeToSent: [] as number[] };
const runs = Array.from({ length: sessions }, () => {
  const t = { heard: 0, asked: 0, lastDelta: 0, spoken: 0, made: 0, sent: 0 };
  // whisper-1 is uploaded (the gpt-4o transcribe models stream, bench/voice-cascade-stt.ts): this hook times its answer.
  const stt = adapter();
  const transcribe = stt.transcribe!.bind(stt);
  stt.transcribe = async (audio, opts) => { const text = await transcribe(audio, opts); t.heard = performance.now(); return text; };
  const brain = adapter();
  const chat = brain.chat!.bind(brain);
  brain.chat = (req, onEvent, signal) => {
    t.asked ||= performance.now();
    return chat(req, (e) => { if (e.type === 'text' && !t.spoken) t.lastDelta = performance.now(); onEvent(e); }, signal);
  };
  const tts = adapter();
  const synth = tts.synthesizeStream!.bind(tts);
  tts.synthesizeStream = async function* (text, opts, signal) {
    const first = !t.spoken;
    if (first) t.spoken = performance.now();
    for await (const pcm of synth(text, opts, signal)) { if (first && !t.made) t.made = performance.now(); yield pcm; }
  };
  let done: () => void = () => {};
  const finished = new Promise<void>((r) => { done = r; });
  const engine = new CascadeEngine(
    { stt: { adapter: stt, label: 'stt', model: 'whisper-1', language: 'en' }, brain: { adapter: brain, label: 'brain', model: 'gpt-4o-mini', effort: 'low', temperature: null, maxToolRounds: 3 }, tts: { adapter: tts, label: 'tts', model: 'gpt-4o-mini-tts', voice: 'coral', speed: 1, style: '' } },
    { model: 'gpt-4o-mini', voice: '', instructions: 'You are a shop assistant.', tools: [], language: 'en', turnDetection: null, bargeIn: true, maxOutputTokens: 2048, history: [] },
    (e) => { if (e.type === 'audio' && !t.sent) t.sent = performance.now(); if (e.type === 'response_done') done(); },
  );
  return { engine, t, finished };
});
await Promise.all(runs.map((r) => r.engine.connect()));
for (let i = 0; i < sessions; i++) { fake.speech.hear('Are you open today?'); fake.script({ text: REPLY }); }
const loop = loopDelay();
loop.start();
const started = performance.now();
for (const r of runs) { r.engine.startTurn(); r.engine.appendAudio(Buffer.alloc(16_000)); r.engine.commitTurn(); }
await Promise.all(runs.map((r) => r.finished));
const delay = loop.stop();
for (const { t } of runs) {
  samples.heardToAsked.push(t.asked - t.heard);
  samples.writtenToSpoken.push(t.spoken - t.lastDelta);
  samples.madeToSent.push(t.sent - t.made);
}
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
console.log(`${sessions} cascade turns at once, all done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
for (const [name, xs] of Object.entries(samples)) console.log(`  ${name}: p50 ${pct(xs, 50).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms`);
console.log(`  event-loop delay p50 ${delay.p50.toFixed(2)} ms, p99 ${delay.p99.toFixed(2)} ms`);
for (const r of runs) r.engine.close();
await fake.close();
