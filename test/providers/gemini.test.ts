import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProvider, type ChatRequest, type ProviderAdapter } from '../../src/providers/index.js';
import { readFakeAudio } from '../fakes/audio.js';
import { startFakeGemini } from '../fakes/gemini.js';
import type { FakeServer } from '../fakes/script.js';
import { collect, rejection, textOf, throwAtSecondDelta } from './helpers.js';

let fake: FakeServer;
let gemini: ProviderAdapter;

test.before(async () => {
  fake = await startFakeGemini();
  gemini = createProvider({ id: 'conn_c', kind: 'gemini', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, { maxRetries: 0 });
});
test.after(() => fake.close());

const ask = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'gemini-2.5-flash', system: 'You are helpful.', messages: [{ role: 'user', content: 'Hello' }], ...over,
});
const lastGenerate = () => [...fake.requests].reverse().find((r) => /:(stream)?generateContent$/i.test(r.path))!;

test('a working key verifies with x-goog-api-key and a wrong one is invalid apiKey', async () => {
  await gemini.verifyKey();
  assert.is(fake.requests.at(-1)!.headers['x-goog-api-key'], fake.apiKey);
  const bad = createProvider({ id: 'x', kind: 'gemini', apiKey: 'AIza-wrong', baseUrl: fake.baseUrl }, { maxRetries: 0 });
  const err = await rejection(bad.verifyKey());
  assert.is(err.code, 'invalid');
  assert.match(err.message, /^apiKey: Google Gemini refused this key \(400: API key not valid/);
});

test('the model list sorts models by what they can do', async () => {
  const models = await gemini.listModels();
  const caps = Object.fromEntries(models.map((m) => [m.id, m.capabilities]));
  assert.ok(caps['gemini-2.5-flash'].text && caps['gemini-2.5-flash'].tools && caps['gemini-2.5-flash'].reasoning);
  assert.ok(caps['gemini-2.5-flash-preview-tts'].tts);
  assert.not.ok(caps['gemini-2.5-flash-preview-tts'].text);
  assert.ok(caps['gemini-embedding-001'].embeddings);
  assert.ok(caps['gemini-2.5-flash-native-audio-preview-09-2025'].realtime);
  assert.is(caps['imagen-4.0-generate-001'], undefined);
  assert.is(gemini.recommendedModel(models), 'gemini-2.5-flash');
});

test('text streams in order over SSE and usage is reported', async () => {
  fake.script({ text: ['One, ', 'two, ', 'three.'], usage: { inputTokens: 20, outputTokens: 6 } });
  const events = await collect(gemini, ask());
  assert.equal(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta), ['One, ', 'two, ', 'three.']);
  assert.equal(events.slice(-2), [{ type: 'usage', inputTokens: 20, outputTokens: 6 }, { type: 'done', finishReason: 'stop' }]);
  const req = lastGenerate();
  assert.match(req.path, /gemini-2\.5-flash:streamGenerateContent$/);
  assert.is(req.query.alt, 'sse');
  assert.equal(req.body.systemInstruction.parts, [{ text: 'You are helpful.' }]);
});

test('a function call round trip sends back the call with its signature and the result', async () => {
  const tools = [{ name: 'get_order', description: 'Order status', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }];
  fake.script([{ toolCalls: [{ name: 'get_order', arguments: { id: 'A1' } }] }, { text: 'Your order A1 has shipped.' }]);
  const first = await collect(gemini, ask({ model: 'gemini-3-flash-preview', tools, messages: [{ role: 'user', content: 'Where is A1?' }] }));
  const call = first.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []))[0];
  assert.is(call.name, 'get_order');
  assert.equal(JSON.parse(call.arguments), { id: 'A1' });
  assert.ok(call.signature);
  assert.equal(first.at(-1), { type: 'done', finishReason: 'tool_calls' });
  assert.equal(lastGenerate().body.tools[0].functionDeclarations[0].parametersJsonSchema, tools[0].parameters);

  const second = await collect(gemini, ask({
    model: 'gemini-3-flash-preview',
    tools,
    messages: [
      { role: 'user', content: 'Where is A1?' },
      { role: 'assistant', content: '', toolCalls: [call] },
      { role: 'tool', toolCallId: call.id, name: 'get_order', content: '{"status":"shipped"}' },
    ],
  }));
  assert.is(textOf(second), 'Your order A1 has shipped.');
  const contents = lastGenerate().body.contents;
  assert.equal(contents[1], { role: 'model', parts: [{ functionCall: { name: 'get_order', args: { id: 'A1' } }, thoughtSignature: call.signature }] });
  assert.equal(contents[2], { role: 'user', parts: [{ functionResponse: { name: 'get_order', response: { status: 'shipped' } } }] });
});

test('third-generation models get a thinking level; older ones none', async () => {
  await collect(gemini, ask({ model: 'gemini-3-flash-preview', effort: 'medium', temperature: 0.4, maxOutputTokens: 1000 }));
  let config = lastGenerate().body.generationConfig;
  assert.equal(config.thinkingConfig, { thinkingLevel: 'HIGH' });
  assert.is(config.temperature, 0.4);
  assert.is(config.maxOutputTokens, 1000);

  await collect(gemini, ask({ model: 'gemini-3-flash-preview', effort: 'minimal' }));
  assert.equal(lastGenerate().body.generationConfig.thinkingConfig, { thinkingLevel: 'LOW' });

  await collect(gemini, ask({ model: 'gemini-2.5-flash', effort: 'high', temperature: null }));
  config = lastGenerate().body.generationConfig ?? {};
  assert.is(config.thinkingConfig, undefined);
  assert.is(config.temperature, undefined);
});

test('images go as inline data', async () => {
  const jpg = Buffer.from([0xff, 0xd8, 0xff]);
  await collect(gemini, ask({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image', mimeType: 'image/jpeg', data: jpg }] }] }));
  assert.equal(lastGenerate().body.contents[0].parts[1], { inlineData: { mimeType: 'image/jpeg', data: jpg.toString('base64') } });
});

test('embeddings come back one per text through batchEmbedContents', async () => {
  const vectors = await gemini.embed!(['shipping times', 'shipping times', 'returns']);
  assert.is(vectors.length, 3);
  assert.equal(vectors[0], vectors[1]);
  assert.match(fake.requests.at(-1)!.path, /gemini-embedding-001:batchEmbedContents$/);
});

test('embeddings asked for fewer dimensions send outputDimensionality and come back that long', async () => {
  const vectors = await gemini.embed!(['shipping times', 'returns'], undefined, { dimensions: 512 });
  const body = fake.requests.at(-1)!.body as { requests: Array<{ outputDimensionality?: number }> };
  assert.equal(body.requests.map((r) => r.outputDimensionality), [512, 512]);
  assert.equal(vectors.map((v) => v.length), [512, 512]);
});

test('text to speech gives playable WAV in the chosen voice with the style in front', async () => {
  const out = await gemini.synthesize!('Thanks for waiting.', { voice: 'Puck', style: 'Say cheerfully' });
  assert.is(out.contentType, 'audio/wav');
  assert.is(out.audio.subarray(0, 4).toString(), 'RIFF');
  assert.is(out.audio.readUInt32LE(24), 24000);
  assert.equal(readFakeAudio(out.audio.subarray(44)), { format: 'pcm', voice: 'Puck', text: 'Say cheerfully: Thanks for waiting.' });
  assert.match(lastGenerate().path, /gemini-2\.5-flash-preview-tts:generateContent$/);
});

test('voices are the prebuilt list', async () => {
  const voices = await gemini.listVoices!();
  assert.ok(voices.length >= 30);
  assert.ok(voices.some((v) => v.id === 'Kore'));
});

test('what the event handler throws ends the stream with that error as it is', async () => {
  fake.script({ text: ['one ', 'two ', 'three'] });
  const { err, thrown, heard } = await throwAtSecondDelta(gemini, ask());
  assert.is(err, thrown);
  assert.equal(heard, ['one ', 'two ']);
});

test('an unknown model is a bad request naming the model', async () => {
  const err = await rejection(collect(gemini, ask({ model: 'gemini-0-nope' })));
  assert.is(err.code, 'bad_request');
  assert.match(err.message, /gemini-0-nope/);
});

test.run();
