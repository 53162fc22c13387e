import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { createProvider, type ProviderAdapter } from '../../src/providers/index.js';
import type { ProviderKind } from '../../src/providers/types.js';
import { pcmToWav } from '../../src/providers/wav.js';
import { startFakeGemini } from '../fakes/gemini.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { startFakeSpeech } from '../fakes/speech.js';
import type { FakeSpeechControl } from '../fakes/speech-stream.js';
import { rejection } from './helpers.js';

type Fake = FakeServer & { speech: FakeSpeechControl };
const fakes: Record<string, Fake> = {};
const adapters: Record<string, ProviderAdapter> = {};
const KINDS: Array<{ kind: ProviderKind; name: string; voice: string; start(): Promise<Fake>; ttsPath: RegExp }> = [
  { kind: 'openai', name: 'OpenAI', voice: 'nova', start: startFakeOpenAI, ttsPath: /\/v1\/audio\/speech$/ },
  { kind: 'speech', name: 'the speech provider', voice: 'voice_rachel', start: startFakeSpeech, ttsPath: /\/v1\/text-to-speech\/voice_rachel\/stream$/ },
  { kind: 'gemini', name: 'Google Gemini', voice: 'Kore', start: startFakeGemini, ttsPath: /gemini-2\.5-flash-preview-tts:streamGenerateContent$/ },
];

test.before(async () => {
  for (const k of KINDS) {
    fakes[k.kind] = await k.start();
    // No retries, as voice uses them: a failure is told at once.
    adapters[k.kind] = createProvider({ id: `conn_${k.kind}`, kind: k.kind, apiKey: fakes[k.kind].apiKey, baseUrl: fakes[k.kind].baseUrl }, { maxRetries: 0 });
  }
});
test.after(async () => { for (const f of Object.values(fakes)) await f.close(); });
test.before.each(() => { for (const f of Object.values(fakes)) { f.speech.chunkIntervalMs = 5; f.speech.msPerChar = 40; } });

const ms = (bytes: number) => (bytes / 2 / 24_000) * 1000;

for (const k of KINDS) {
  test(`${k.name}: speech streams as PCM at 24 kHz, the first audio long before the last`, async () => {
    const fake = fakes[k.kind];
    fake.speech.chunkIntervalMs = 20;
    const text = 'Our shop opens at nine and closes at five.';
    const started = Date.now();
    let firstAt = 0;
    let bytes = 0;
    for await (const pcm of adapters[k.kind].synthesizeStream!(text, { voice: k.voice }, undefined)) {
      firstAt ||= Date.now() - started;
      assert.is(pcm.length % 2, 0, 'whole samples');
      bytes += pcm.length;
    }
    const total = Date.now() - started;
    assert.is(Math.round(ms(bytes)), text.length * 40, 'as long as the fake takes to say it');
    // The fake sends 17 chunks 20 ms apart: 320 ms from its first to its last. Audio handed on as it comes keeps
    // most of that spread; audio held until the answer ends has none. (Connecting and the SDK's first call come
    // before the first audio and are left out: on a busy machine they alone took 180 ms.)
    const sending = (Math.ceil(ms(bytes) / 100) - 1) * fake.speech.chunkIntervalMs;
    assert.ok(total - firstAt >= sending / 2, `audio from ${firstAt} ms to ${total} ms: the fake sent it over ${sending} ms`);
    const req = fake.requests.filter((r) => k.ttsPath.test(r.path)).at(-1)!;
    assert.ok(req, 'the streaming endpoint was used');
    if (k.kind === 'openai') assert.equal([req.body.response_format, req.body.model, req.body.voice], ['pcm', 'gpt-4o-mini-tts', 'nova']);
    if (k.kind === 'speech') assert.equal([req.query.output_format, req.body.model_id], ['pcm_24000', 'eleven_flash_v2_5']);
  });

  test(`${k.name}: stopping a stream closes the provider's request`, async () => {
    const fake = fakes[k.kind];
    fake.speech.chunkIntervalMs = 30;
    const controller = new AbortController();
    const err = await rejection((async () => {
      for await (const _ of adapters[k.kind].synthesizeStream!('A long answer that the visitor will not wait for.', { voice: k.voice }, controller.signal)) {
        controller.abort(new Error('barge-in'));
      }
    })());
    assert.is(err.message, 'barge-in');
    await until(() => fake.speech.open === 0, { message: 'the fake seeing the speech stream closed' });
  });

  test(`${k.name}: a provider error before the audio is an ApiError naming the provider`, async () => {
    fakes[k.kind].failNext(k.kind === 'gemini' ? 'streamGenerateContent' : k.kind === 'openai' ? '/audio/speech' : '/stream', 500, 'speech engine down');
    const err = await rejection((async () => { for await (const _ of adapters[k.kind].synthesizeStream!('Hello.', { voice: k.voice })) { /* none */ } })());
    assert.is(err.name, 'ApiError');
    assert.match(err.message, new RegExp(`${k.name} failed \\(500\\)`));
  });
}

test('speed and style reach the providers that take them', async () => {
  for await (const _ of adapters.openai.synthesizeStream!('Hi.', { voice: 'nova', speed: 1.25, style: 'Warm and calm' })) { /* drain */ }
  const o = fakes.openai.lastBody('/audio/speech');
  assert.equal([o.speed, o.instructions], [1.25, 'Warm and calm']);
  for await (const _ of adapters.speech.synthesizeStream!('Hi.', { voice: 'voice_rachel', speed: 1.5 })) { /* drain */ }
  assert.equal(fakes.speech.lastBody('/stream').voice_settings, { speed: 1.2 });
  for await (const _ of adapters.gemini.synthesizeStream!('Hi.', { voice: 'Puck', style: 'Say cheerfully' })) { /* drain */ }
  const g = fakes.gemini.lastBody('streamGenerateContent');
  assert.is(g.contents[0].parts[0].text, 'Say cheerfully: Hi.');
  assert.is(g.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName, 'Puck');
});

test('the speech provider streams with timestamps: audio with the alignment of the characters it speaks', async () => {
  const fake = fakes.speech;
  const res = await fetch(`${fake.url}/v1/text-to-speech/voice_rachel/stream/with-timestamps?output_format=pcm_24000`, {
    method: 'POST', headers: { 'xi-api-key': fake.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hello there.', model_id: 'eleven_flash_v2_5' }),
  });
  const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.length >= 4);
  assert.is(lines.map((l) => l.alignment.characters.join('')).join(''), 'Hello there.');
  const ends = lines.flatMap((l) => l.alignment.character_end_times_seconds);
  assert.ok(Math.abs(ends.at(-1) - 0.48) < 0.01, `last character ends at ${ends.at(-1)} s`);
  assert.ok(lines.every((l) => typeof l.audio_base64 === 'string'));
});

test('speech to text hears what the test says, with the language hint, and stops when asked', async () => {
  const wav = pcmToWav(Buffer.alloc(16_000), 16_000);
  for (const kind of ['openai', 'speech'] as const) {
    fakes[kind].speech.hear('Do you deliver on Sundays?');
    assert.is(await adapters[kind].transcribe!(wav, { mimeType: 'audio/wav', language: 'en-GB' }), 'Do you deliver on Sundays?');
    const body = fakes[kind].lastBody(kind === 'openai' ? '/audio/transcriptions' : '/speech-to-text');
    assert.is(kind === 'openai' ? body.language : body.language_code, 'en');
    assert.is(body.file.data.subarray(0, 4).toString(), 'RIFF');
    fakes[kind].speech.misbehaveNext(kind === 'openai' ? '/audio/transcriptions' : '/speech-to-text', 'hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('turn dropped')), 50);
    const err = await rejection(adapters[kind].transcribe!(wav, { mimeType: 'audio/wav', signal: controller.signal }));
    assert.is(err.message, 'turn dropped');
  }
});

test.run();
