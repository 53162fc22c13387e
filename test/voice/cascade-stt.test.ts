/**
 * Speech to text in cascade voice through the real server, kind B: a hands-free turn with OpenAI's default
 * transcription model streams to a Realtime transcription session while the visitor speaks (no upload after the turn),
 * and publishing refuses a speech-to-text model that cannot transcribe.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorld } from '../bots-api/setup.js';
import { Visitor } from '../chat/helpers.js';
import type { FakeOpenAI } from '../fakes/openai.js';
import type { FakeSpeech } from '../fakes/speech.js';
import { silentPcm, spokenPcm } from '../helpers/spoken.js';
import { seen, sendAudio, startVoice, startVoiceWorld } from './world.js';

const IN = 16_000;
const QUESTION = 'Do you bake gluten free bread?';

test('a hands-free turn reaches OpenAI while the visitor speaks; the stored question is the streamed transcript', async () => {
  const w = await startVoiceWorld({ voice: { mode: 'cascade' }, config: { identity: { languagePolicy: 'fixed', language: 'en-GB' } } });
  const fake = w.fake as FakeOpenAI;
  try {
    fake.speech.hear(QUESTION);
    fake.script({ text: 'Yes, every Friday.' });
    const v = await w.visitor();
    await startVoice(v);
    sendAudio(v, Buffer.concat([spokenPcm(QUESTION), silentPcm(1200)]), IN);
    const user = await seen(v, 'message', (f) => f.message.role === 'user', 10_000);
    assert.equal([user.message.text, user.message.modality], [QUESTION, 'voice']);
    await seen(v, 'message', (f) => f.message.role === 'assistant' && f.message.text === 'Yes, every Friday.', 10_000);
    const [session] = fake.realtime.transcriptions;
    assert.equal(session.session.audio.input.transcription, { model: 'gpt-4o-mini-transcribe', language: 'en' });
    assert.is(session.session.audio.input.turn_detection, null, 'the server\'s VAD decides turns, not OpenAI\'s');
    assert.ok(session.committedAt !== null && session.bytes > 24_000, `${session.bytes} bytes streamed at 24 kHz`);
    assert.is(fake.requests.filter((r) => r.path === '/v1/audio/transcriptions').length, 0, 'nothing uploaded');
    await v.close();
  } finally {
    await w.close();
  }
});

test('publishing refuses a speech-to-text model that cannot transcribe, naming the setting and models that can', async () => {
  const w = await startWorld();
  try {
    const openai = await w.connectOpenAI('OpenAI');
    const bot = (await w.as('POST', '/api/v1/bots', { name: 'Cascade' })).body;
    const patch = async (p: unknown) => {
      const current = (await w.as('GET', `/api/v1/bots/${bot.id}`)).body;
      const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: current.revision, patch: p });
      assert.is(r.status, 200, JSON.stringify(r.body));
    };
    const publish = () => w.as('POST', `/api/v1/bots/${bot.id}/publish`);
    for (const model of ['gpt-realtime', 'gpt-4o-mini']) {
      await patch({ brain: { connectionId: openai.id, model: 'gpt-4o-mini' }, voice: { enabled: true, mode: 'cascade', cascade: { stt: { connectionId: openai.id, model } } } });
      const r = await publish();
      assert.is(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.error.details, [{
        path: 'voice.cascade.stt.model',
        message: `${model} is not a speech-to-text model; choose one of the speech-to-text models of OpenAI (GET /api/v1/providers/${openai.id}/models lists them): gpt-4o-mini-transcribe, whisper-1`,
      }]);
    }
    await patch({ voice: { cascade: { stt: { model: 'whisper-1' } } } });
    assert.is((await publish()).status, 200);
  } finally {
    await w.close();
  }
});

test('kind D: a turn uploaded to the speech provider (scribe_v1) as multipart is transcribed; the stored question is what it heard', async () => {
  const w = await startWorld();
  const speech = w.speech as FakeSpeech;
  try {
    const brain = await w.connectOpenAI();
    const voices = await w.connectSpeech();
    const bot = (await w.as('POST', '/api/v1/bots', { name: 'Bakery' })).body;
    const draft = (await w.as('GET', `/api/v1/bots/${bot.id}`)).body;
    const patched = await w.as('PATCH', `/api/v1/bots/${bot.id}`, {
      revision: draft.revision,
      patch: {
        brain: { connectionId: brain.id, model: 'gpt-4o-mini' },
        voice: { enabled: true, mode: 'cascade', cascade: { stt: { connectionId: voices.id, model: 'scribe_v1', language: 'en' }, tts: { connectionId: brain.id, voice: 'nova' } } },
      },
    });
    assert.is(patched.status, 200, JSON.stringify(patched.body));
    const published = await w.as('POST', `/api/v1/bots/${bot.id}/publish`);
    assert.is(published.status, 200, JSON.stringify(published.body));
    speech.speech.hear(QUESTION);
    (w.openai as FakeOpenAI).script({ text: 'Yes, every Friday.' });
    const v = await Visitor.open(`${w.server.url.replace('http', 'ws')}/widget/v1/chat?botId=${bot.id}`);
    await startVoice(v);
    sendAudio(v, Buffer.concat([spokenPcm(QUESTION), silentPcm(1200)]), IN);
    const user = await seen(v, 'message', (f) => f.message.role === 'user', 10_000);
    assert.equal([user.message.text, user.message.modality], [QUESTION, 'voice']);
    const upload = speech.requests.find((r) => r.path === '/v1/speech-to-text')!;
    assert.match(String(upload.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.is(upload.body.model_id, 'scribe_v1');
    assert.is(upload.body.language_code, 'en');
    assert.ok(upload.body.file.size > 16_000, `${upload.body.file.size} bytes of audio uploaded`);
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
