import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { guardedAdapter } from '../../src/providers/connections.js';
import { createProvider, type ProviderAdapter } from '../../src/providers/index.js';
import { createGuardedClient, type GuardedClient } from '../../src/security/guarded-client.js';
import { readFakeAudio } from '../fakes/audio.js';
import type { FakeServer } from '../fakes/script.js';
import { startFakeSpeech } from '../fakes/speech.js';
import { rejection } from './helpers.js';

let fake: FakeServer;
let speech: ProviderAdapter;
let client: GuardedClient;

// Through the guarded client, as the server calls the provider (npm undici's fetch, not Node's).
test.before(async () => {
  fake = await startFakeSpeech();
  client = createGuardedClient({ allowPrivateNetwork: true });
  speech = guardedAdapter(client, { id: 'conn_d', kind: 'speech', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, { timeoutMs: 5000, maxRetries: 0 });
});
test.after(async () => { await client.close(); await fake.close(); });

test('a working key verifies with xi-api-key and a wrong one is invalid apiKey', async () => {
  await speech.verifyKey();
  const req = fake.requests.at(-1)!;
  assert.is(req.path, '/v1/user');
  assert.is(req.headers['xi-api-key'], fake.apiKey);
  const err = await rejection(createProvider({ id: 'x', kind: 'speech', apiKey: 'wrong', baseUrl: fake.baseUrl }).verifyKey());
  assert.is(err.code, 'invalid');
  assert.is(err.message, 'apiKey: the speech provider refused this key (401: Invalid API key)');
});

test('models list speech models and the transcription model, recommending the fast one', async () => {
  const models = await speech.listModels();
  assert.equal(models.map((m) => m.id), ['eleven_multilingual_v2', 'eleven_flash_v2_5', 'scribe_v1', 'scribe_v2_realtime']);
  assert.ok(models[2].capabilities.stt);
  assert.is(speech.recommendedModel(models), 'eleven_flash_v2_5');
});

test('voices carry names, languages and preview URLs', async () => {
  const voices = await speech.listVoices!();
  assert.equal(voices[0], { id: 'voice_rachel', name: 'Rachel', language: 'en', previewUrl: `${fake.url}/previews/voice_rachel.mp3` });
  assert.is(voices[2].previewUrl, null);
});

test('text to speech returns audio and keeps speed within what the provider takes', async () => {
  const out = await speech.synthesize!('Guten Tag', { voice: 'voice_hans', speed: 2, style: 'ignored by this kind' });
  assert.is(out.contentType, 'audio/mpeg');
  assert.equal(readFakeAudio(out.audio), { format: 'mp3', voice: 'voice_hans', text: 'Guten Tag' });
  const req = fake.requests.at(-1)!;
  assert.is(req.query.output_format, 'mp3_44100_128');
  assert.equal(req.body, { text: 'Guten Tag', model_id: 'eleven_flash_v2_5', voice_settings: { speed: 1.2 } });
});

test('speech to text hears what text to speech said', async () => {
  const spoken = await speech.synthesize!('I would like a refund', { voice: 'voice_rachel' });
  assert.is(await speech.transcribe!(spoken.audio, { mimeType: 'audio/ogg', language: 'en-US' }), 'I would like a refund');
  const body = fake.lastBody('/v1/speech-to-text');
  assert.is(body.model_id, 'scribe_v1');
  assert.is(body.language_code, 'en');
  assert.is(body.file.filename, 'audio.ogg');
  assert.match(String(fake.requests.at(-1)!.headers['content-type']), /^multipart\/form-data; boundary=/);
});

test('a preview is the provider sample, fetched without our key, or synthesized when there is none', async () => {
  const sample = await speech.previewVoice!('voice_rachel');
  assert.is(readFakeAudio(sample.audio)?.text, 'preview of voice_rachel');
  const fileReq = fake.requests.find((r) => r.path.startsWith('/previews/'))!;
  assert.is(fileReq.headers['xi-api-key'], undefined);

  const made = await speech.previewVoice!('voice_plain');
  assert.match(readFakeAudio(made.audio)!.text, /This is how I sound/);
});

test('an unknown voice is a bad request', async () => {
  const err = await rejection(speech.synthesize!('x', { voice: 'voice_nobody' }));
  assert.is(err.code, 'bad_request');
  assert.match(err.message, /voice_nobody/);
});

test.run();
