/**
 * The fakes are as strict as the services they stand for (test/fakes/strict.ts): a request the real API would
 * refuse is refused with its status and error shape, and the real SDKs' requests are accepted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI, { toFile } from 'openai';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';

let openai: FakeOpenAI;

test.before(async () => {
  openai = await startFakeOpenAI();
});
test.after(async () => {
  await openai.close();
});

/** A raw request to a fake: JSON (an object), text as is, or FormData; with the fake's key. */
async function send(fake: { url: string }, path: string, body: unknown, headers: Record<string, string>, type = 'application/json') {
  const init: RequestInit = { method: 'POST', headers: { ...headers } };
  if (body instanceof FormData) init.body = body;
  else {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = type;
  }
  const res = await fetch(fake.url + path, init);
  return { status: res.status, body: await res.json() as any };
}
const bearer = () => ({ authorization: `Bearer ${openai.apiKey}` });
const openAiError = (message: string, param: string | null, code: string | null) => ({ error: { message, type: 'invalid_request_error', param, code } });

test('OpenAI: malformed JSON, a missing or mistyped field and an unknown argument are 400 in OpenAI\'s error shape', async () => {
  const chat = (body: unknown, type?: string) => send(openai, '/v1/chat/completions', body, bearer(), type);
  let r = await chat('{"model": "gpt-4o-mini",');
  assert.is(r.status, 400);
  assert.match(r.body.error.message, /^We could not parse the JSON body of your request/);
  assert.equal([r.body.error.type, r.body.error.param, r.body.error.code], ['invalid_request_error', null, null]);
  r = await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, 'text/plain');
  assert.is(r.status, 400);
  assert.match(r.body.error.message, /could not parse the JSON body/);
  r = await chat({ model: 'gpt-4o-mini' });
  assert.equal([r.status, r.body], [400, openAiError("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter')]);
  r = await chat({ model: 'gpt-4o-mini', messages: 'hi' });
  assert.equal([r.status, r.body], [400, openAiError("Invalid type for 'messages': expected an array, but got a string instead.", 'messages', 'invalid_type')]);
  r = await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], colour: 'blue' });
  assert.equal([r.status, r.body], [400, openAiError('Unrecognized request argument supplied: colour', null, null)]);
  r = await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
  assert.equal([r.status, r.body.error.message], [400, "The 'stream_options' parameter is only allowed when 'stream' is enabled."]);
  r = await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_1', content: '{}' }] });
  assert.equal([r.status, r.body.error.message, r.body.error.param], [400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", 'messages[1].role']);
  r = await chat({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 });
  assert.match(r.body.error.message, /Unsupported parameter: 'max_tokens'/);
  assert.is(openai.usages.length, 0, 'no refused request reached the model');
});

test('OpenAI: a transcription wants multipart with a file and a model, as the API does', async () => {
  const path = '/v1/audio/transcriptions';
  let r = await send(openai, path, { model: 'whisper-1', file: 'audio.ogg' }, bearer());
  assert.equal([r.status, r.body], [400, openAiError('Could not parse multipart form', null, null)]);
  r = await send(openai, path, '[object FormData]', bearer(), 'text/plain;charset=UTF-8');
  assert.equal([r.status, r.body.error.message], [400, 'Could not parse multipart form']);
  const noFile = new FormData();
  noFile.append('model', 'whisper-1');
  r = await send(openai, path, noFile, bearer());
  assert.equal([r.status, r.body], [400, openAiError("Missing required parameter: 'file'.", 'file', 'missing_required_parameter')]);
  const noModel = new FormData();
  noModel.append('file', new Blob([new Uint8Array(800)], { type: 'audio/wav' }), 'a.wav');
  r = await send(openai, path, noModel, bearer());
  assert.equal([r.status, r.body], [400, openAiError("Missing required parameter: 'model'.", 'model', 'missing_required_parameter')]);
});

test('OpenAI: the SDK\'s own requests are accepted (chat streamed and not, tools, embeddings, speech, transcription); an unknown path is 404', async () => {
  const client = new OpenAI({ apiKey: openai.apiKey, baseURL: openai.baseUrl, maxRetries: 0 });
  openai.script({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { id: '7' } }] });
  const first = await client.chat.completions.create({
    model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Order 7?' }],
    tools: [{ type: 'function', function: { name: 'lookup', description: 'Finds an order.', parameters: { type: 'object', properties: { id: { type: 'string' } } } } }],
  });
  const call = first.choices[0].message.tool_calls![0];
  const stream = await client.chat.completions.create({
    model: 'gpt-5-mini', stream: true, stream_options: { include_usage: true }, max_completion_tokens: 200, reasoning_effort: 'low',
    messages: [{ role: 'user', content: 'Order 7?' }, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"status":"sent"}' }],
  });
  let text = '';
  for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  assert.is(text, 'The tool said: {"status":"sent"}');
  const emb = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float', dimensions: 8 });
  assert.is(emb.data.length, 2);
  const speech = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', input: 'Hello', voice: 'nova', response_format: 'wav', instructions: 'Cheerful' });
  const audio = Buffer.from(await speech.arrayBuffer());
  openai.speech.hear('Hello there');
  const heard = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(audio, 'a.wav', { type: 'audio/wav' }), language: 'en' });
  assert.is(heard.text, 'Hello there');
  const err = await client.post('/nowhere', { body: {} }).catch((e) => e);
  assert.equal([err.status, err.error.type], [404, 'invalid_request_error']);
});

test.run();
