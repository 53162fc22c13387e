/**
 * The fakes are as strict as the services they stand for (test/fakes/strict.ts): a request the real API would
 * refuse is refused with its status and error shape, and the real SDKs' requests are accepted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GoogleGenAI, Modality, type Session } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import WebSocket from 'ws';
import { until } from '../helpers/until.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini.js';
import { LIVE_PATH } from '../fakes/gemini-live.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { startFakeMcpHttp } from '../fakes/mcp-server.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFakeSpeech, type FakeSpeech } from '../fakes/speech.js';

let openai: FakeOpenAI;
let gemini: FakeGemini;
let speech: FakeSpeech;

test.before(async () => {
  [openai, gemini, speech] = await Promise.all([startFakeOpenAI(), startFakeGemini(), startFakeSpeech()]);
});
test.after(async () => {
  await Promise.all([openai.close(), gemini.close(), speech.close()]);
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
  const err: any = await client.post('/nowhere', { body: {} }).catch((e: unknown) => e);
  assert.equal([err.status, err.error.type], [404, 'invalid_request_error']);
});

const googleKey = () => ({ 'x-goog-api-key': gemini.apiKey });
const googleError = (message: string) => ({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
const user = (text: string) => ({ role: 'user', parts: [{ text }] });

test('Gemini: malformed JSON, a missing, mistyped or unknown field and a broken function-call order are 400 INVALID_ARGUMENT', async () => {
  const generate = (body: unknown) => send(gemini, '/v1beta/models/gemini-2.5-flash:generateContent', body, googleKey());
  let r = await generate('{"contents": [');
  assert.equal([r.status, r.body], [400, googleError('Invalid JSON payload received. Unexpected token.')]);
  r = await generate({ generationConfig: { temperature: 0.2 } });
  assert.equal(r.body, googleError('* GenerateContentRequest.contents: contents is not specified'));
  r = await generate({ contents: [user('hi')], generationConfig: { temperature: 'warm' } });
  assert.equal(r.body, googleError('Invalid value at \'generation_config.temperature\' (TYPE_FLOAT), "warm"'));
  r = await generate({ contents: [user('hi')], generationConfig: { max_tokens: 10 } });
  assert.equal(r.body, googleError('Invalid JSON payload received. Unknown name "max_tokens" at \'generation_config\': Cannot find field.'));
  r = await generate({ contents: [user('hi')], temperature: 0.2 });
  assert.equal(r.body, googleError('Invalid JSON payload received. Unknown name "temperature": Cannot find field.'));
  r = await generate({ contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] });
  assert.equal(r.body, googleError('* GenerateContentRequest.contents[0].role: Please use a valid role: user, model.'));
  r = await generate({ contents: [{ role: 'user', parts: [] }] });
  assert.equal(r.body, googleError('* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.'));
  const call = { role: 'model', parts: [{ functionCall: { name: 'lookup', args: {} } }, { functionCall: { name: 'lookup', args: { id: 2 } } }] };
  r = await generate({ contents: [user('hi'), call, { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: {} } }] }] });
  assert.equal(r.body, googleError('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.'));
  r = await generate({ contents: [user('hi'), { role: 'model', parts: [{ text: 'Let me see.' }] }, call] });
  assert.equal(r.body, googleError('Please ensure that function call turn comes immediately after a user turn or after a function response turn.'));
  r = await generate({ contents: [user('hi')], tools: [{ functionDeclarations: [{ name: '1 lookup' }] }] });
  assert.match(r.body.error.message, /^\* GenerateContentRequest\.tools\[0\]\.function_declarations\[0\]\.name: Invalid function name/);
  r = await send(gemini, '/v1beta/models/gemini-embedding-001:batchEmbedContents', { requests: [{ content: { parts: [{ text: 'a' }] } }] }, googleKey());
  assert.equal(r.body, googleError('* BatchEmbedContentsRequest.requests[0].model: model is not specified'));
  assert.is(gemini.usages.length, 0, 'no refused request reached the model');
});

test('Gemini: the SDK\'s own requests are accepted (tools and their results, streaming, speech, embeddings, Live setup)', async () => {
  const ai = new GoogleGenAI({ apiKey: gemini.apiKey, httpOptions: { baseUrl: gemini.url } });
  gemini.script({ toolCalls: [{ name: 'lookup', arguments: { id: '7' } }] });
  const tools = [{ functionDeclarations: [{ name: 'lookup', description: 'Finds an order.', parametersJsonSchema: { type: 'object', properties: { id: { type: 'string' } } } }] }];
  const config = { systemInstruction: 'Be brief.', tools, temperature: 0.3, maxOutputTokens: 200, thinkingConfig: { thinkingBudget: 0 } };
  const first = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Order 7?', config });
  const modelTurn = first.candidates![0].content!;
  const stream = await ai.models.generateContentStream({
    model: 'gemini-2.5-flash', config,
    contents: [user('Order 7?'), modelTurn, { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { status: 'sent' } } }] }],
  });
  let text = '';
  for await (const c of stream) text += c.text ?? '';
  assert.is(text, 'The tool said: {"status":"sent"}');
  const spoken = await ai.models.generateContent({
    model: 'gemini-2.5-flash-preview-tts', contents: 'Hello',
    config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  });
  assert.ok(spoken.candidates![0].content!.parts![0].inlineData?.data);
  const emb = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['a', 'b'], config: { outputDimensionality: 8, taskType: 'RETRIEVAL_DOCUMENT' } });
  assert.is(emb.embeddings!.length, 2);

  const messages: any[] = [];
  let session: Session | null = null;
  const setupDone = new Promise<void>((resolve, reject) => {
    void ai.live.connect({
      model: 'gemini-3.8-live',
      config: { responseModalities: [Modality.AUDIO], systemInstruction: 'Be brief.', inputAudioTranscription: {}, outputAudioTranscription: {}, realtimeInputConfig: { automaticActivityDetection: { disabled: true } } },
      callbacks: { onmessage: (m) => { messages.push(m); if (m.setupComplete) resolve(); }, onerror: reject, onclose: (e) => reject(new Error(`closed ${e.code} ${e.reason}`)) },
    }).then((s) => { session = s; }, reject);
  });
  await setupDone;
  (session as Session | null)?.close();
  assert.ok(messages.some((m) => m.setupComplete));
});

test('Gemini Live: a client message the service cannot read closes the session with 1007 and the reason', async () => {
  const reasons: string[] = [];
  for (const frames of [[{ setup: { model: 'models/gemini-3.8-live', voice: 'Kore' } }], [{ setup: { model: 'models/gemini-3.8-live' } }, { realtimeInput: { audio: { data: 'AAAA' } } }]]) {
    const ws = new WebSocket(`${gemini.url.replace('http', 'ws')}${LIVE_PATH}?key=${gemini.apiKey}`);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: String(reason) })));
    for (const f of frames) ws.send(JSON.stringify(f));
    const c = await closed;
    assert.is(c.code, 1007);
    reasons.push(c.reason);
  }
  assert.equal(reasons, [
    'Invalid JSON payload received. Unknown name "voice" at \'setup\': Cannot find field.',
    '* BidiGenerateContentClientMessage.realtime_input.audio.mime_type: mime_type is not specified',
  ]);
});

/** Opens the fake's Realtime socket, waits for session.created, sends each event and collects the answer to it. */
async function realtimeAnswers(events: unknown[]): Promise<any[]> {
  const ws = new WebSocket(`${openai.baseUrl.replace(/^http/, 'ws')}/realtime?model=gpt-realtime`, { headers: bearer() });
  const got: any[] = [];
  ws.on('message', (d) => got.push(JSON.parse(String(d))));
  const answers = (n: number) => until(() => got, { ok: (g) => g.length >= n, message: `${n} answers` });
  await answers(1);
  assert.is(got[0].type, 'session.created');
  for (const [i, ev] of events.entries()) { ws.send(typeof ev === 'string' ? ev : JSON.stringify(ev)); await answers(i + 2); }
  ws.close();
  return got.slice(1);
}

test('OpenAI Realtime: an unknown event type, a missing, mistyped or unknown field is an error event in the API\'s shape; a good event is taken', async () => {
  const [unknownType, noAudio, typed, unknownKey, badItem, noSessionType, good] = await realtimeAnswers([
    { type: 'input_audio_buffer.flush', event_id: 'e1' },
    { type: 'input_audio_buffer.append', event_id: 'e2' },
    { type: 'conversation.item.truncate', item_id: 'x', content_index: 0, audio_end_ms: '100' },
    { type: 'response.create', response: { instructions: 'Be brief.', temperature: 0.7 } },
    { type: 'conversation.item.create', item: { type: 'text', text: 'hi' } },
    { type: 'session.update', session: { instructions: 'x' } },
    { type: 'session.update', event_id: 'e7', session: { type: 'realtime', instructions: 'Be brief.', audio: { output: { voice: 'marin' } } } },
  ]);
  const error = (code: string, message: string, param: string | null, eventId: string | null) => ({ type: 'invalid_request_error', code, message, param, event_id: eventId });
  assert.is(unknownType.type, 'error');
  assert.match(unknownType.error.message, /^Invalid value: 'input_audio_buffer\.flush'\. Supported values are: 'session\.update', /);
  assert.equal({ ...unknownType.error, message: '' }, { ...error('invalid_value', '', 'type', 'e1') });
  assert.equal(noAudio.error, error('missing_required_parameter', "Missing required parameter: 'audio'.", 'audio', 'e2'));
  assert.equal(typed.error, error('invalid_type', "Invalid type for 'audio_end_ms': expected a number, but got a string instead.", 'audio_end_ms', null));
  assert.equal(unknownKey.error, error('unknown_parameter', "Unknown parameter: 'response.temperature'.", 'response.temperature', null));
  assert.equal(badItem.error, error('invalid_value', "Invalid value: 'text'. Supported values are: 'message', 'function_call', 'function_call_output'.", 'item.type', null));
  assert.equal(noSessionType.error, error('missing_required_parameter', "Missing required parameter: 'session.type'.", 'session.type', null));
  assert.is(good.type, 'session.updated', JSON.stringify(good));
  // A refused event changes nothing: only the good one was acted on.
  assert.equal(openai.realtime.types().filter((t) => t === 'session.update').length >= 1, true);
});

test('MCP: the fake checks each message itself: wrong content type 415, not JSON -32700, malformed -32600, unknown method -32601, bad params -32602; the SDK client is served', async () => {
  const mcp = await startFakeMcpHttp();
  try {
    const post = async (body: string, type = 'application/json') => {
      const r = await fetch(mcp.url, { method: 'POST', headers: { 'content-type': type, accept: 'application/json, text/event-stream' }, body });
      return { status: r.status, body: await r.json() as any };
    };
    const rpc = (m: unknown) => post(JSON.stringify(m));
    const err = (id: unknown, code: number) => (r: { body: any }) => { assert.is(r.body.jsonrpc, '2.0'); assert.is(r.body.id, id); assert.is(r.body.error.code, code, JSON.stringify(r.body)); };
    const plain = await post('{"jsonrpc":"2.0","id":1,"method":"ping"}', 'text/plain');
    assert.is(plain.status, 415); err(null, -32600)(plain);
    const broken = await post('{"jsonrpc":"2.0",');
    assert.is(broken.status, 400); err(null, -32700)(broken);
    const v1 = await rpc({ jsonrpc: '1.0', id: 2, method: 'ping' });
    assert.is(v1.status, 400); err(2, -32600)(v1);
    const extra = await rpc({ jsonrpc: '2.0', id: 3, method: 'ping', extra: true });
    assert.is(extra.status, 400); err(3, -32600)(extra);
    assert.match(extra.body.error.message, 'unknown field extra');
    const unknown = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/frobnicate' });
    err(4, -32601)(unknown);
    const noName = await rpc({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { arguments: { text: 'x' } } });
    err(5, -32602)(noName);
    assert.match(noName.body.error.message, 'missing name');
    assert.is(mcp.state.calls.length, 0, 'nothing refused reached a tool');
    // The SDK's own client: initialize, list and call are accepted.
    const client = new Client({ name: 'strict-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'echo'));
    const out = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.equal(out.content, [{ type: 'text', text: 'echo: hi' }]);
    await client.close();
  } finally { await mcp.close(); }
});

test('speech provider: refusals are 422 validation lists; speech to text wants multipart with model_id and file', async () => {
  const key = { 'xi-api-key': speech.apiKey };
  const detail = (type: string, loc: Array<string | number>, msg: string) => [{ type, loc, msg }];
  const pickDetail = (b: any) => b.detail.map((d: any) => ({ type: d.type, loc: d.loc, msg: d.msg }));
  let r = await send(speech, '/v1/text-to-speech/voice_rachel', '{"text":', key);
  assert.equal([r.status, pickDetail(r.body)], [422, detail('json_invalid', ['body', 0], 'JSON decode error')]);
  r = await send(speech, '/v1/text-to-speech/voice_rachel', { model_id: 'eleven_flash_v2_5' }, key);
  assert.equal([r.status, pickDetail(r.body)], [422, detail('missing', ['body', 'text'], 'Field required')]);
  r = await send(speech, '/v1/text-to-speech/voice_rachel/stream', { text: 'Hi', voice_settings: { speed: 2 } }, key);
  assert.equal([r.status, pickDetail(r.body)], [422, detail('value_error', ['body', 'voice_settings', 'speed'], 'Input should be less than or equal to 1.2')]);
  r = await send(speech, '/v1/speech-to-text', '[object FormData]', key, 'text/plain;charset=UTF-8');
  assert.equal([r.status, pickDetail(r.body)], [422, detail('missing', ['body', 'file'], 'Field required')]);
  const noModel = new FormData();
  noModel.append('file', new Blob([new Uint8Array(800)], { type: 'audio/wav' }), 'a.wav');
  r = await send(speech, '/v1/speech-to-text', noModel, key);
  assert.equal([r.status, pickDetail(r.body)], [422, detail('missing', ['body', 'model_id'], 'Field required')]);
  r = await send(speech, '/v1/convai/agents/create', { name: 'Ava' }, key);
  assert.equal([r.status, pickDetail(r.body)], [422, detail('missing', ['body', 'conversation_config'], 'Field required')]);
  const ok = new FormData();
  ok.append('model_id', 'scribe_v1');
  ok.append('file', new Blob([new Uint8Array(800)], { type: 'audio/wav' }), 'a.wav');
  speech.speech.hear('Hello');
  r = await send(speech, '/v1/speech-to-text', ok, key);
  assert.equal([r.status, r.body.text], [200, 'Hello']);
  assert.is(speech.requests.filter((q) => q.refused).length, 6, 'each refusal is recorded with its reason');
});

test.run();
