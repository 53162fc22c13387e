import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { FRAME_SAMPLES, SileroVad, VadStream } from '../../src/providers/cascade/silero.js';
import { TurnDetector, type TurnDetectorOptions } from '../../src/providers/cascade/turn-detector.js';
import { tone } from '../fakes/realtime-audio.js';
import { silentPcm, spokenPcm } from '../helpers/spoken.js';

/** Feeds PCM (16 kHz) in 20 ms frames, as the widget sends it; resolves once every frame has been judged. */
async function detect(pcm: Buffer, opts: Partial<TurnDetectorOptions> = {}) {
  const vad = await SileroVad.shared();
  // Events are placed in audio time: how much audio had been judged when they came.
  const events: Array<{ type: 'start' | 'turn'; atMs: number; audioMs?: number; speechMs?: number }> = [];
  const d: TurnDetector = new TurnDetector(vad, {
    onSpeechStart: () => events.push({ type: 'start', atMs: d.judgedMs }),
    onTurn: (audio, speechMs) => events.push({ type: 'turn', atMs: d.judgedMs, audioMs: audio.length / 32, speechMs }),
    onError: (err) => { throw err; },
  }, opts);
  for (let off = 0; off < pcm.length; off += 640) d.push(pcm.subarray(off, off + 640));
  await until(() => d.judgedMs >= Math.floor(pcm.length / 1024) * 32, { timeout: 10_000, message: 'the detector judging all the audio' });
  return { events, turns: events.filter((e) => e.type === 'turn'), stats: d.stats };
}

test('a question with a pause to think is one turn, ended about 0.8 s after the last word', async () => {
  const question = spokenPcm('I would like to know <break time="500ms"/> your opening hours, <break time="700ms"/> and whether you deliver on Sundays.');
  const { events, turns } = await detect(Buffer.concat([silentPcm(300), question, silentPcm(1500)]));
  assert.is(turns.length, 1, JSON.stringify(events));
  assert.is(events[0].type, 'start');
  assert.ok(events[0].atMs < 300 + 250, `speech heard ${events[0].atMs - 300} ms after it began`);
  const spokenMs = 300 + question.length / 32;
  assert.ok(turns[0].atMs - spokenMs < 1100, `turn ended ${turns[0].atMs - spokenMs} ms after the words`);
  // The turn's audio holds the whole question (with a little padding), not the trailing quiet.
  assert.ok(Math.abs(turns[0].audioMs! - question.length / 32) < 600, `${turns[0].audioMs} ms of audio for ${question.length / 32} ms of speech`);
});

test('a long pause ends the turn: two questions, two turns', async () => {
  const two = spokenPcm('What time do you open? <break time="1500ms"/> And when do you close?');
  const { turns } = await detect(Buffer.concat([two, silentPcm(1500)]));
  assert.is(turns.length, 2);
});

test('a shorter hangover answers sooner but splits a thinking pause', async () => {
  const question = spokenPcm('I would like to know <break time="700ms"/> your opening hours.');
  assert.is((await detect(Buffer.concat([question, silentPcm(1500)]), { hangoverMs: 400 })).turns.length, 2);
  assert.is((await detect(Buffer.concat([question, silentPcm(1500)]))).turns.length, 1);
});

test('silence, a steady tone and a click are not speech; silence skips the model', async () => {
  const { events, stats } = await detect(Buffer.concat([silentPcm(1000), tone(1500, 440, 6000, 16_000), silentPcm(200), tone(40, 1000, 20000, 16_000), silentPcm(1000)]));
  assert.equal(events, []);
  assert.ok(stats.gated > 40, `${stats.gated} quiet frames skipped the model`);
});

test('frames of several sessions run as one batch give each the same answer as alone', async () => {
  const vad = await SileroVad.shared();
  const clips = [spokenPcm('Hello there.'), spokenPcm('Opening hours, please.'), silentPcm(700)];
  const frameAt = (pcm: Buffer, k: number) => {
    const f = new Float32Array(FRAME_SAMPLES);
    for (let i = 0; i < FRAME_SAMPLES; i++) { const o = (k * FRAME_SAMPLES + i) * 2; f[i] = o + 1 < pcm.length ? pcm.readInt16LE(o) / 32768 : 0; }
    return f;
  };
  const frames = 20;
  const alone: number[][] = [];
  for (const clip of clips) {
    const s = new VadStream();
    const out: number[] = [];
    for (let k = 0; k < frames; k++) out.push(await vad.probability(s, frameAt(clip, k)));
    alone.push(out);
  }
  const streams = clips.map(() => new VadStream());
  const together: number[][] = clips.map(() => []);
  const batches = vad.stats.batches;
  for (let k = 0; k < frames; k++) {
    const p = await Promise.all(clips.map((clip, i) => vad.probability(streams[i], frameAt(clip, k))));
    p.forEach((v, i) => together[i].push(v));
  }
  assert.ok(vad.stats.batches - batches <= frames + 1, 'the sessions ran together');
  for (let i = 0; i < clips.length; i++) for (let k = 0; k < frames; k++) assert.ok(Math.abs(alone[i][k] - together[i][k]) < 1e-4, `clip ${i} frame ${k}`);
  assert.ok(Math.max(...alone[1]) > 0.9, 'speech is heard');
  assert.ok(Math.max(...alone[2]) < 0.1, 'silence is not');
});

test.run();
