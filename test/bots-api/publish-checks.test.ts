import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini.js';
import { FAKE_OPENAI_MODELS, startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { startWorld, type World } from './setup.js';

// What a person reads when publishing is refused: provider names, and models the connection does not offer.
let w: World;
let local: FakeServer;
let google: FakeGemini;
const localModels = ['llama3.1:8b', 'qwen3:8b'];
test.before(async () => {
  w = await startWorld();
  local = await startFakeOpenAI({ models: localModels });
  google = await startFakeGemini();
});
test.after(async () => { await w.close(); await local.close(); await google.close(); });

const newBot = async (name: string) => (await w.as('POST', '/api/v1/bots', { name })).body;
const patch = async (bot: { id: string }, p: unknown) => {
  const current = (await w.as('GET', `/api/v1/bots/${bot.id}`)).body;
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: current.revision, patch: p });
  assert.is(r.status, 200, JSON.stringify(r.body));
};
const publish = (bot: { id: string }) => w.as('POST', `/api/v1/bots/${bot.id}/publish`);
const problems = async (bot: { id: string }) => {
  const r = await publish(bot);
  assert.is(r.status, 422, JSON.stringify(r.body));
  return r.body.error.details.map((p: any) => `${p.path}: ${p.message}`);
};

test('with no provider connected, the brain names the providers that can reply and what to do', async () => {
  const bot = await newBot('Nothing connected');
  const r = await publish(bot);
  assert.is(r.status, 422);
  assert.is(r.body.error.message, 'the draft cannot be published: '
    + 'brain.connectionId: replying needs an OpenAI, Google Gemini or OpenAI-compatible connection; connect one (Providers), then choose it here; '
    + 'brain.model: choose a model');
});

let openai: any;
let ollama: any;
test('a connection that does not exist says so and where to find the ones that do', async () => {
  openai = await w.connectOpenAI('OpenAI');
  const bot = await newBot('Missing connection');
  await patch(bot, { brain: { connectionId: 'prv_gone' } });
  assert.equal(await problems(bot), [
    'brain.connectionId: connection prv_gone does not exist (it may have been removed); choose one of the connections GET /api/v1/providers lists',
  ]);
});

test('a default connection of the wrong kind is named with its provider', async () => {
  const r = await w.as('POST', '/api/v1/providers', { kind: 'openai_compatible', name: 'Ollama', apiKey: local.apiKey, baseUrl: local.baseUrl });
  assert.is(r.status, 201, JSON.stringify(r.body));
  ollama = r.body;
  const bot = await newBot('Local voice');
  await patch(bot, { brain: { connectionId: ollama.id, model: 'llama3.1:8b' }, voice: { enabled: true, mode: 'realtime' } });
  assert.equal(await problems(bot), [
    'voice.realtime.connectionId: realtime voice needs an OpenAI or Google Gemini connection, and the one it would use by default (Ollama) is an OpenAI-compatible connection; choose one here',
  ]);
});

test('a brain model the connection does not offer is refused, naming where the models are listed', async () => {
  const bot = await newBot('Future model');
  await patch(bot, { brain: { connectionId: openai.id, model: 'gpt-9000' } });
  assert.equal(await problems(bot), [
    `brain.model: OpenAI does not offer the model gpt-9000; choose one of the models GET /api/v1/providers/${openai.id}/models lists (such as gpt-4.1-mini, gpt-4o-mini, gpt-5-mini)`,
  ]);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.published, null, 'nothing was published');
  await patch(bot, { brain: { model: 'gpt-4o-mini' } });
  assert.is((await publish(bot)).status, 200);
});

test('voice models are checked against their own connections when set', async () => {
  const speech = await w.connectSpeech('Voices');
  const bot = await newBot('Voice models');
  await patch(bot, {
    brain: { connectionId: openai.id, model: 'gpt-4o-mini' },
    voice: { enabled: true, mode: 'cascade', cascade: { stt: { connectionId: openai.id, model: 'whisper-9' }, tts: { connectionId: speech.id, model: 'eleven_v9' } } },
  });
  assert.equal(await problems(bot), [
    `voice.cascade.stt.model: OpenAI does not offer the model whisper-9; choose one of the models GET /api/v1/providers/${openai.id}/models lists (such as gpt-4o-mini-transcribe, whisper-1)`,
    `voice.cascade.tts.model: Voices does not offer the model eleven_v9; choose one of the models GET /api/v1/providers/${speech.id}/models lists (such as eleven_multilingual_v2, eleven_flash_v2_5)`,
  ]);
  await patch(bot, { voice: { mode: 'realtime', realtime: { connectionId: null, model: 'gpt-realtime-9' } } });
  assert.equal(await problems(bot), [
    `voice.realtime.model: OpenAI does not offer the model gpt-realtime-9; choose one of the models GET /api/v1/providers/${openai.id}/models lists (such as gpt-realtime)`,
  ]);
  await patch(bot, { voice: { realtime: { model: 'gpt-realtime' }, cascade: { stt: { model: '' }, tts: { model: '' } } } });
  assert.is((await publish(bot)).status, 200, 'empty models mean the provider default and are not checked');
});

test('a text model as the realtime model is refused, listing the realtime models of the connection', async () => {
  const bot = await newBot('Text as realtime');
  await patch(bot, { brain: { connectionId: openai.id, model: 'gpt-4o-mini' }, voice: { enabled: true, mode: 'realtime', realtime: { connectionId: openai.id, model: 'gpt-4o-mini' } } });
  const r = await publish(bot);
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'invalid');
  assert.equal(r.body.error.details, [{
    path: 'voice.realtime.model',
    message: `gpt-4o-mini is not a realtime model; choose one of the realtime models of OpenAI (GET /api/v1/providers/${openai.id}/models lists them): gpt-realtime`,
  }]);
  assert.ok(r.body.error.message.includes('voice.realtime.model: gpt-4o-mini is not a realtime model'), r.body.error.message);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.published, null, 'nothing was published');
  await patch(bot, { voice: { realtime: { model: 'gpt-realtime' } } });
  assert.is((await publish(bot)).status, 200);
});

test('a realtime voice the engine does not have is refused, listing its voices', async () => {
  const bot = await newBot('Realtime voices');
  // fable is a voice of OpenAI's speech endpoint, not of its realtime models.
  await patch(bot, { brain: { connectionId: openai.id, model: 'gpt-4o-mini' }, voice: { enabled: true, mode: 'realtime', realtime: { voice: 'fable' } } });
  assert.equal(await problems(bot), [
    'voice.realtime.voice: OpenAI Realtime has no voice fable; choose one of alloy, ash, ballad, coral, echo, sage, shimmer, verse, marin, cedar (or leave it empty for marin)',
  ]);
  await patch(bot, { voice: { realtime: { voice: 'cedar' } } });
  assert.is((await publish(bot)).status, 200);

  const gemini = (await w.as('POST', '/api/v1/providers', { kind: 'gemini', name: 'Gemini', apiKey: google.apiKey, baseUrl: google.baseUrl })).body;
  const live = await newBot('Live voices');
  await patch(live, { brain: { connectionId: gemini.id, model: 'gemini-2.5-flash' }, voice: { enabled: true, mode: 'realtime', realtime: { model: 'gemini-2.5-flash', voice: 'marin' } } });
  const found = await problems(live);
  assert.is(found.length, 2, found.join('\n'));
  assert.is(found[0], `voice.realtime.model: gemini-2.5-flash is not a realtime model; choose one of the realtime models of Gemini (GET /api/v1/providers/${gemini.id}/models lists them): gemini-2.5-flash-native-audio-preview-09-2025, gemini-3.8-live`);
  assert.match(found[1], /^voice\.realtime\.voice: Gemini Live has no voice marin; choose one of Zephyr, Puck, Charon, .*, Sulafat \(or leave it empty for Puck\)$/);
  await patch(live, { voice: { realtime: { model: '', voice: 'Kore' } } });
  assert.is((await publish(live)).status, 200);
});

test('a speech voice the connection does not list is refused, for cascade speech and the hosted agent', async () => {
  const speech = await w.connectSpeech('Voice library');
  const bot = await newBot('Cascade voices');
  await patch(bot, {
    brain: { connectionId: openai.id, model: 'gpt-4o-mini' },
    voice: { enabled: true, mode: 'cascade', cascade: { stt: { connectionId: openai.id }, tts: { connectionId: speech.id, voice: 'voice_gone' } } },
  });
  assert.equal(await problems(bot), [
    `voice.cascade.tts.voice: Voice library has no voice voice_gone; choose one of the voices GET /api/v1/providers/${speech.id}/voices lists: voice_rachel (Rachel), voice_hans (Hans), voice_plain (Plain)`,
  ]);
  await patch(bot, { voice: { cascade: { tts: { connectionId: openai.id, voice: 'marin2' } } } });
  assert.equal(await problems(bot), [
    `voice.cascade.tts.voice: OpenAI has no voice marin2; choose one of the voices GET /api/v1/providers/${openai.id}/voices lists: alloy, ash, ballad, coral, echo, fable, nova, onyx, sage, shimmer, verse, marin, cedar`,
  ]);
  await patch(bot, { voice: { cascade: { tts: { voice: 'nova' } } } });
  assert.is((await publish(bot)).status, 200);

  const agent = await newBot('Hosted voices');
  await patch(agent, {
    brain: { connectionId: openai.id, model: 'gpt-4o-mini' },
    voice: { enabled: true, mode: 'hosted_agent', hostedAgent: { connectionId: speech.id, voice: 'Rachel' } },
  });
  assert.equal(await problems(agent), [
    `voice.hostedAgent.voice: Voice library has no voice Rachel; choose one of the voices GET /api/v1/providers/${speech.id}/voices lists: voice_rachel (Rachel), voice_hans (Hans), voice_plain (Plain)`,
  ]);
  await patch(agent, { voice: { hostedAgent: { voice: 'voice_rachel' } } });
  assert.is((await publish(agent)).status, 200);
});

test('a model the provider added after its list was cached is found by asking again', async () => {
  const bot = await newBot('New local model');
  await w.as('GET', `/api/v1/providers/${ollama.id}/models`);
  localModels.push('llama4:16x17b');
  await patch(bot, { brain: { connectionId: ollama.id, model: 'llama4:16x17b' } });
  const r = await publish(bot);
  assert.is(r.status, 200, JSON.stringify(r.body));
});

test('when the model list cannot be fetched, publishing goes ahead without a word about models', async () => {
  const bot = await newBot('Provider down');
  await patch(bot, { brain: { connectionId: ollama.id, model: 'mistral:7b' } });
  // The cached list is a day old, and the provider now refuses to list models.
  await w.clock.advance(25 * 60 * 60 * 1000);
  local.failNext('/models', 401, 'Unauthorized');
  const r = await publish(bot);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.published.config.brain.model, 'mistral:7b');
});

test('the fake lists the models these messages name', () => {
  for (const m of ['gpt-4.1-mini', 'gpt-4o-mini', 'gpt-5-mini', 'gpt-4o-mini-transcribe', 'whisper-1', 'gpt-realtime']) assert.ok(FAKE_OPENAI_MODELS.includes(m), m);
});

test.run();
