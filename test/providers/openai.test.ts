import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kernel/errors.js';
import { createProvider, type ChatRequest, type ProviderAdapter } from '../../src/providers/index.js';
import { readFakeAudio } from '../fakes/audio.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { collect, rejection, textOf, throwAtSecondDelta } from './helpers.js';

let fake: FakeServer;
let openai: ProviderAdapter;

test.before(async () => {
  fake = await startFakeOpenAI();
  openai = createProvider({ id: 'conn_b', kind: 'openai', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, { maxRetries: 0 });
});
test.after(() => fake.close());

const ask = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'gpt-4.1-mini', system: 'You are helpful.', messages: [{ role: 'user', content: 'Hello there' }], ...over,
});

test('a working key verifies and a wrong one is refused as invalid apiKey', async () => {
  await openai.verifyKey();
  const bad = createProvider({ id: 'x', kind: 'openai', apiKey: 'sk-wrong', baseUrl: fake.baseUrl }, { maxRetries: 0 });
  const err = await rejection(bad.verifyKey());
  assert.instance(err, ApiError);
  assert.is(err.code, 'invalid');
  assert.is(err.status, 422);
  assert.match(err.message, /^apiKey: OpenAI refused this key \(401/);
  assert.not.match(err.message, /sk-wrong/);
});

test('the model list says what each model can do and leaves out unusable ones', async () => {
  const models = await openai.listModels();
  const byId = Object.fromEntries(models.map((m) => [m.id, m.capabilities]));
  assert.ok(byId['gpt-4.1-mini'].text && byId['gpt-4.1-mini'].tools && byId['gpt-4.1-mini'].vision);
  assert.ok(byId['o4-mini'].reasoning);
  assert.ok(byId['text-embedding-3-small'].embeddings);
  assert.ok(byId['gpt-4o-mini-tts'].tts);
  assert.ok(byId['whisper-1'].stt);
  assert.ok(byId['gpt-realtime'].realtime);
  assert.is(byId['dall-e-3'], undefined);
  assert.is(openai.recommendedModel(models), 'gpt-4.1-mini');
});

test('text arrives as deltas in order, then usage and done', async () => {
  fake.script({ text: ['Hel', 'lo ', 'world'], usage: { inputTokens: 12, outputTokens: 3 } });
  const events = await collect(openai, ask());
  assert.equal(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta), ['Hel', 'lo ', 'world']);
  assert.equal(events.slice(-2), [{ type: 'usage', inputTokens: 12, outputTokens: 3 }, { type: 'done', finishReason: 'stop' }]);
  assert.equal(fake.lastBody('/chat/completions').stream_options, { include_usage: true });
});

test('without a script the fake echoes the last user message and reports counted usage', async () => {
  const events = await collect(openai, ask({ messages: [{ role: 'user', content: 'ping' }] }));
  assert.is(textOf(events), 'You said: ping');
  const usage = events.find((e) => e.type === 'usage');
  assert.equal(usage, { type: 'usage', ...fake.usages.at(-1)! });
});

test('a tool call round trip: the model asks, gets the result, then answers', async () => {
  const tools = [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
  fake.script([{ toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 4 degrees in Oslo.' }]);
  const first = await collect(openai, ask({ tools, messages: [{ role: 'user', content: 'Weather in Oslo?' }] }));
  const call = first.find((e) => e.type === 'tool_call');
  assert.equal(call, { type: 'tool_call', call: { id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' } });
  assert.equal(first.at(-1), { type: 'done', finishReason: 'tool_calls' });
  assert.equal(fake.lastBody('/chat/completions').tools[0].function.name, 'get_weather');

  const second = await collect(openai, ask({
    tools,
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
      { role: 'tool', toolCallId: 'call_w', name: 'get_weather', content: '{"tempC":4}' },
    ],
  }));
  assert.is(textOf(second), 'It is 4 degrees in Oslo.');
  const sent = fake.lastBody('/chat/completions').messages;
  assert.equal(sent[2], { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] });
  assert.equal(sent[3], { role: 'tool', tool_call_id: 'call_w', content: '{"tempC":4}' });
});

test('reasoning models get reasoning_effort and no temperature; others get temperature', async () => {
  await collect(openai, ask({ model: 'gpt-5-mini', effort: 'minimal', temperature: 0.5, maxOutputTokens: 900 }));
  let body = fake.lastBody('/chat/completions');
  assert.is(body.reasoning_effort, 'minimal');
  assert.is(body.temperature, undefined);
  assert.is(body.max_completion_tokens, 900);

  await collect(openai, ask({ model: 'o4-mini', effort: 'minimal' }));
  assert.is(fake.lastBody('/chat/completions').reasoning_effort, 'low');

  await collect(openai, ask({ model: 'gpt-4.1-mini', effort: 'high', temperature: 0.7 }));
  body = fake.lastBody('/chat/completions');
  assert.is(body.reasoning_effort, undefined);
  assert.is(body.temperature, 0.7);

  await collect(openai, ask({ temperature: null }));
  assert.not.ok('temperature' in fake.lastBody('/chat/completions'));
});

test('images are sent as data URLs beside the text', async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  await collect(openai, ask({ messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', mimeType: 'image/png', data: png }] }] }));
  const content = fake.lastBody('/chat/completions').messages[1].content;
  assert.equal(content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } });
});

test('embeddings are one vector per text, equal texts giving equal vectors', async () => {
  const [a, b, c] = await openai.embed!(['refund policy', 'refund policy', 'opening hours']);
  assert.is(a.length, 64);
  assert.equal(a, b);
  assert.not.equal(a, c);
  assert.is(fake.lastBody('/embeddings').model, 'text-embedding-3-small');
  assert.not.ok('dimensions' in fake.lastBody('/embeddings'));
});

test('embeddings asked for fewer dimensions send the dimensions parameter and come back that long', async () => {
  const [v] = await openai.embed!(['refund policy'], undefined, { dimensions: 512 });
  assert.is(fake.lastBody('/embeddings').dimensions, 512);
  assert.is(v.length, 512);
});

test('text to speech returns audio and passes speed and speaking style', async () => {
  const out = await openai.synthesize!('Welcome!', { voice: 'coral', speed: 1.25, style: 'warm and calm' });
  assert.is(out.contentType, 'audio/mpeg');
  assert.equal(readFakeAudio(out.audio), { format: 'mp3', voice: 'coral', text: 'Welcome!' });
  const body = fake.lastBody('/audio/speech');
  assert.is(body.model, 'gpt-4o-mini-tts');
  assert.is(body.speed, 1.25);
  assert.is(body.instructions, 'warm and calm');

  await openai.synthesize!('Hi', { voice: 'alloy', model: 'tts-1', style: 'warm' });
  assert.is(fake.lastBody('/audio/speech').instructions, undefined);
});

test('speech to text hears what text to speech said, with a two-letter language hint', async () => {
  const spoken = await openai.synthesize!('Where is my order?', { voice: 'alloy' });
  const text = await openai.transcribe!(spoken.audio, { mimeType: 'audio/webm;codecs=opus', language: 'en-GB' });
  assert.is(text, 'Where is my order?');
  const body = fake.lastBody('/audio/transcriptions');
  assert.is(body.language, 'en');
  assert.is(body.file.filename, 'audio.webm');
  assert.is(body.model, 'gpt-4o-mini-transcribe');
});

test('voices are the built-in list and a preview is real audio', async () => {
  const voices = await openai.listVoices!();
  assert.ok(voices.some((v) => v.id === 'alloy' && v.name === 'Alloy'));
  const preview = await openai.previewVoice!('nova');
  assert.is(readFakeAudio(preview.audio)?.voice, 'nova');
});

test('provider failures become clear ApiErrors', async () => {
  fake.script({ error: { status: 500, message: 'The server had an error' } });
  let err = await rejection(collect(openai, ask()));
  assert.is(err.code, 'internal');
  assert.is(err.status, 502);
  assert.equal(err.details, { providerStatus: 500, retryable: true });

  fake.script({ error: { status: 429, message: 'Rate limit reached' } });
  err = await rejection(collect(openai, ask()));
  assert.is(err.code, 'rate_limited');
  assert.ok(err.headers['Retry-After']);

  err = await rejection(openai.synthesize!('x', { voice: 'nobody' }));
  assert.is(err.code, 'bad_request');
  assert.match(err.message, /voice/);
});

test('what the event handler throws ends the stream with that error, and nothing is heard after it', async () => {
  fake.script({ text: ['one ', 'two ', 'three'] });
  const { err, thrown, heard } = await throwAtSecondDelta(openai, ask());
  assert.is(err, thrown);
  assert.equal(heard, ['one ', 'two ']);
  const after = await collect(openai, ask({ messages: [{ role: 'user', content: 'again' }] }));
  assert.is(textOf(after), 'You said: again');
});

test('aborting a slow reply stops the stream', async () => {
  fake.script({ text: 'late', delayMs: 5000 });
  const ctrl = new AbortController();
  const pending = rejection(collect(openai, ask(), ctrl.signal));
  setTimeout(() => ctrl.abort(), 20);
  const started = Date.now();
  const err = await pending;
  assert.ok(Date.now() - started < 2000);
  assert.not.instance(err, ApiError);
});

test.run();
