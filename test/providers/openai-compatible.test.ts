import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kernel/errors.js';
import { createProvider, type ChatRequest, type ProviderAdapter } from '../../src/providers/index.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { closedPort, collect, rejection, textOf } from './helpers.js';

// An Ollama-like server: local model names, some reasoning, one embedding model.
const MODELS = ['llama3.1:8b', 'gpt-oss:20b', 'nomic-embed-text:latest', 'llava:13b'];

let fake: FakeServer;
let local: ProviderAdapter;
const fetched: string[] = [];

test.before(async () => {
  fake = await startFakeOpenAI({ models: MODELS, apiKey: 'ollama' });
  // The caller's fetch (the guarded outbound client in the server) carries every request.
  const countingFetch: typeof fetch = (input, init) => {
    fetched.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
  local = createProvider({ id: 'conn_a', kind: 'openai_compatible', apiKey: 'ollama', baseUrl: `${fake.baseUrl}/` }, { fetch: countingFetch, maxRetries: 0 });
});
test.after(() => fake.close());

const ask = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'llama3.1:8b', system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], ...over,
});

test('an OpenAI-compatible connection needs a base URL', () => {
  try {
    createProvider({ id: 'x', kind: 'openai_compatible', apiKey: 'k' });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, ApiError);
    assert.match((err as ApiError).message, /^baseUrl: required/);
  }
});

test('a key check goes through the caller fetch and passes with the right key', async () => {
  fetched.length = 0;
  await local.verifyKey();
  assert.equal(fetched, [`${fake.baseUrl}/models`]);
});

test('an unreachable base URL is reported as invalid baseUrl', async () => {
  const port = await closedPort();
  const down = createProvider({ id: 'x', kind: 'openai_compatible', apiKey: 'k', baseUrl: `http://127.0.0.1:${port}/v1` }, { maxRetries: 0 });
  const err = await rejection(down.verifyKey());
  assert.is(err.code, 'invalid');
  assert.match(err.message, /^baseUrl: could not reach .* \(ECONNREFUSED\)/);
});

test('an error the guarded fetch throws reaches the caller unchanged', async () => {
  const refused = new ApiError('invalid', 422, 'baseUrl: private network addresses are not allowed');
  const guarded = createProvider({ id: 'x', kind: 'openai_compatible', apiKey: 'k', baseUrl: 'http://10.0.0.5/v1' }, {
    fetch: async () => { throw refused; }, maxRetries: 0,
  });
  assert.is(await rejection(guarded.verifyKey()), refused);
});

test('models are guessed from their names and the first text model is recommended', async () => {
  const models = await local.listModels();
  const caps = Object.fromEntries(models.map((m) => [m.id, m.capabilities]));
  assert.ok(caps['gpt-oss:20b'].reasoning);
  assert.ok(caps['llava:13b'].vision);
  assert.ok(caps['nomic-embed-text:latest'].embeddings);
  assert.not.ok(caps['nomic-embed-text:latest'].text);
  assert.is(local.recommendedModel(models), 'gpt-oss:20b');
});

test('effort goes only to models that reason, minimal counting as low, with max_tokens', async () => {
  await collect(local, ask({ model: 'gpt-oss:20b', effort: 'minimal', temperature: 0.2, maxOutputTokens: 300 }));
  let body = fake.lastBody('/chat/completions');
  assert.is(body.reasoning_effort, 'low');
  assert.is(body.temperature, 0.2);
  assert.is(body.max_tokens, 300);
  assert.is(body.max_completion_tokens, undefined);

  await collect(local, ask({ effort: 'high' }));
  body = fake.lastBody('/chat/completions');
  assert.is(body.reasoning_effort, undefined);
});

test('an OpenAI reasoning model named through a compatible connection gets max_completion_tokens and no temperature, as OpenAI requires', async () => {
  // The fake refuses what OpenAI refuses for these models (max_tokens, a temperature other than 1).
  const events = await collect(local, ask({ model: 'o4-mini', temperature: 0.2, maxOutputTokens: 300 }));
  assert.is(textOf(events), 'You said: Hi');
  const body = fake.lastBody('/chat/completions');
  assert.equal([body.max_completion_tokens, body.max_tokens, body.temperature], [300, undefined, undefined]);
});

test('streamed text, tool calls and usage come through as from OpenAI', async () => {
  fake.script({ text: 'Let me look.', toolCalls: [{ name: 'search_knowledge', arguments: { query: 'prices' } }, { name: 'get_time', arguments: {} }] });
  const events = await collect(local, ask({ tools: [{ name: 'search_knowledge', description: 's', parameters: { type: 'object' } }, { name: 'get_time', description: 't', parameters: { type: 'object' } }] }));
  assert.is(textOf(events), 'Let me look.');
  const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
  assert.equal(calls.map((c) => [c.name, JSON.parse(c.arguments)]), [['search_knowledge', { query: 'prices' }], ['get_time', {}]]);
  assert.equal(events.find((e) => e.type === 'usage'), { type: 'usage', ...fake.usages.at(-1)! });
});

test('a stream cut at any byte, with comments, no usage and an error inside, reads as the server meant it', async () => {
  // A server sending its SSE a few bytes at a time (a character split across writes), a keep-alive comment,
  // no usage chunk, and, on the second request, an error event mid-stream.
  const chunk = (delta: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const sse = ++calls === 1
      ? `: keep-alive\n\n${chunk({ role: 'assistant', content: 'Grüße ' })}${chunk({ content: 'from Zürich 🙂' })}data: [DONE]\n\n`
      : `${chunk({ content: 'Hal' })}data: {"error":{"message":"overloaded","type":"server_error"}}\n\n`;
    const bytes = Buffer.from(sse);
    let at = 0;
    const drip = () => { if (at >= bytes.length) { res.end(); return; } res.write(bytes.subarray(at, at += 5)); setImmediate(drip); };
    drip();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const p = createProvider({ id: 'conn_drip', kind: 'openai_compatible', apiKey: 'k', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }, { maxRetries: 0 });
    const events = await collect(p, ask());
    assert.is(textOf(events), 'Grüße from Zürich 🙂');
    const usage = events.find((e) => e.type === 'usage');
    assert.ok(usage && usage.type === 'usage' && usage.inputTokens > 0 && usage.outputTokens > 0, 'usage estimated when the server sends none');
    assert.equal(events.at(-1), { type: 'done', finishReason: 'stop' });
    const err = await rejection(collect(p, ask()));
    assert.instance(err, ApiError);
    assert.match(err.message, /overloaded/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('embeddings use the model the caller names', async () => {
  const vectors = await local.embed!(['a b c'], 'nomic-embed-text:latest');
  assert.is(vectors.length, 1);
  assert.is(fake.lastBody('/embeddings').model, 'nomic-embed-text:latest');
});

test.run();
