import type { ServerResponse } from 'node:http';
import { fakeAudio } from './audio.js';
import { fakeEmbedding } from './embeddings.js';
import type { EmbedFn } from './embedders.js';
import { mountRealtime, type FakeRealtime } from './openai-realtime.js';
import { OPENAI_ENDPOINTS, refuseOpenAi } from './openai-schemas.js';
import { mountSpeech, speechMs, type FakeSpeechControl, type SpeechMount } from './speech-stream.js';
import {
  argsText, chunkPause, countTokens, sendJson, startFake, turnChunks, turnPrelude,
  type FakeOptions, type FakeServer, type HandlerContext, type LastMessage, type RecordedRequest, type ScriptedTurn,
} from './script.js';

/**
 * A fake OpenAI API (also what kind A servers speak): models, chat completions (streaming SSE and
 * plain), embeddings, speech (raw PCM streamed as it is made with response_format pcm, speech-stream.ts) and
 * transcriptions (requests checked as the API checks them: openai-schemas.ts), with OpenAI's error JSON, and the Realtime API's WebSocket on /v1/realtime (openai-realtime.ts).
 * baseUrl ends in /v1.
 */
export const FAKE_OPENAI_MODELS = [
  'gpt-4o-mini', 'gpt-4.1-mini', 'gpt-5-mini', 'o4-mini', 'text-embedding-3-small', 'gpt-4o-mini-tts', 'tts-1',
  'whisper-1', 'gpt-4o-mini-transcribe', 'gpt-realtime', 'dall-e-3',
];
const VOICES = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar']);
const AUDIO_TYPES: Record<string, string> = { mp3: 'audio/mpeg', wav: 'audio/wav', opus: 'audio/ogg', aac: 'audio/aac', flac: 'audio/flac', pcm: 'audio/pcm' };
const CREATED = 1_700_000_000;

export function writeOpenAiError(res: ServerResponse, status: number, message: string): void {
  const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : null } });
}

/** The fake OpenAI server; `realtime` scripts and records its Realtime WebSocket endpoint, `speech` its audio endpoints. */
export type FakeOpenAI = FakeServer & { realtime: FakeRealtime; speech: FakeSpeechControl };

/**
 * `embed`: the embedding model served on /v1/embeddings (test/fakes/embedders.ts); the hashed bag of words of
 * embeddings.ts when absent.
 */
export async function startFakeOpenAI(opts: FakeOptions & { models?: string[]; embed?: EmbedFn } = {}): Promise<FakeOpenAI> {
  const apiKey = opts.apiKey ?? 'test-key';
  const models = opts.models ?? FAKE_OPENAI_MODELS;
  const sp = mountSpeech();
  const rt = mountRealtime({ apiKey, models, heard: sp.heard });
  const server = await startFake({
    apiKey,
    baseSuffix: '/v1',
    authorized: (r) => r.headers.authorization === `Bearer ${apiKey}`,
    writeError: writeOpenAiError,
    endpoints: OPENAI_ENDPOINTS,
    refuse: refuseOpenAi,
    unauthorizedMessage: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
    handle: async (req, res, ctx) => {
      const route = `${req.method} ${req.path}`;
      if (route === 'GET /v1/models') {
        return sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'system' })) });
      }
      if (route === 'POST /v1/chat/completions') return chatCompletion(req, res, ctx);
      if (route === 'POST /v1/embeddings') return embeddings(req, res, opts.embed);
      if (route === 'POST /v1/audio/speech') return speech(req, res, sp);
      if (route === 'POST /v1/audio/transcriptions') return transcription(req, res, sp);
      writeOpenAiError(res, 404, `Invalid URL (${route})`);
    },
    upgrade: rt.upgrade,
  });
  // startFake's close leaves upgraded sockets open (they would hold the server open), so they go first.
  const closeHttp = server.close;
  return Object.assign(server, {
    realtime: rt.realtime,
    speech: sp.control,
    close: () => { rt.close(); return closeHttp(); },
  });
}

function lastMessage(messages: Array<{ role: string; content: unknown }>): LastMessage {
  const last = [...messages].reverse().find((m) => m.role === 'user' || m.role === 'tool');
  const c = last?.content;
  const text = typeof c === 'string' ? c
    : Array.isArray(c) ? c.filter((p: { type: string }) => p.type === 'text').map((p: { text: string }) => p.text).join(' ') : '';
  return { role: last?.role === 'tool' ? 'tool' : 'user', text };
}

async function chatCompletion(req: RecordedRequest, res: ServerResponse, ctx: HandlerContext): Promise<void> {
  const body = req.body as { model: string; messages: Array<{ role: string; content: unknown }>; stream?: boolean; stream_options?: { include_usage?: boolean } };
  const turn: ScriptedTurn = ctx.nextTurn(lastMessage(body.messages));
  if (await turnPrelude(turn, res, writeOpenAiError)) return;

  const chunks = turnChunks(turn);
  const calls = (turn.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${i + 1}`, name: c.name, arguments: argsText(c.arguments) }));
  const usage = turn.usage ?? {
    inputTokens: countTokens(JSON.stringify(body.messages)),
    outputTokens: countTokens(chunks.join('') + calls.map((c) => c.name + c.arguments).join('')),
  };
  ctx.recordUsage(usage);
  const wireUsage = { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
  const finish = calls.length ? 'tool_calls' : turn.finishReason ?? 'stop';
  const id = `chatcmpl-${ctx.origin.slice(-5)}${Date.now()}`;

  if (!body.stream) {
    const message = { role: 'assistant', content: chunks.join('') || null, refusal: null, ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}) };
    return sendJson(res, 200, { id, object: 'chat.completion', created: CREATED, model: body.model, choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage: wireUsage });
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model: body.model, choices, ...extra })}\n\n`);
  const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => send([{ index: 0, delta: d, finish_reason, logprobs: null }]);

  delta({ role: 'assistant', content: '' });
  for (const c of chunks) {
    delta({ content: c });
    if (!(await chunkPause(turn, res))) return;
  }
  calls.forEach((c, index) => {
    delta({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
    // Arguments arrive in fragments, as from the real API.
    const mid = Math.ceil(c.arguments.length / 2);
    for (const part of [c.arguments.slice(0, mid), c.arguments.slice(mid)]) if (part) delta({ tool_calls: [{ index, function: { arguments: part } }] });
  });
  delta({}, finish);
  if (body.stream_options?.include_usage) send([], { usage: wireUsage });
  res.end('data: [DONE]\n\n');
}

async function embeddings(req: RecordedRequest, res: ServerResponse, embed?: EmbedFn): Promise<void> {
  const body = req.body as { input: string | string[]; model: string; encoding_format?: string; dimensions?: number };
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const served = embed ? await embed(inputs.map(String)) : null;
  const data = inputs.map((text, index) => {
    const v = served ? served[index] : fakeEmbedding(String(text), body.dimensions);
    const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
    return { object: 'embedding', index, embedding };
  });
  const tokens = inputs.reduce((n, t) => n + countTokens(String(t)), 0);
  sendJson(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

async function speech(req: RecordedRequest, res: ServerResponse, sp: SpeechMount): Promise<void> {
  const body = req.body as { model: string; input: string; voice: string; response_format?: string; speed?: number };
  if (!VOICES.has(body.voice)) return writeOpenAiError(res, 400, `Invalid value for 'voice': ${body.voice}`);
  const format = body.response_format ?? 'mp3';
  const how = sp.take(req.path);
  if (how === 'hang') return sp.hang(res);
  if (how === 'empty') { res.writeHead(200, { 'content-type': AUDIO_TYPES[format] ?? 'application/octet-stream' }); res.end(); return; }
  // Raw PCM comes as it is made: a chunked body, 24 kHz 16-bit mono.
  if (format === 'pcm') {
    return sp.stream(res, speechMs(body.input, sp.control.msPerChar) / (body.speed ?? 1), { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' }, (pcm) => pcm, how);
  }
  const audio = fakeAudio(body.input, body.voice, format);
  res.writeHead(200, { 'content-type': AUDIO_TYPES[format] ?? 'application/octet-stream', 'content-length': audio.length });
  res.end(audio);
}

async function transcription(req: RecordedRequest, res: ServerResponse, sp: SpeechMount): Promise<void> {
  const body = req.body as { file: { data: Buffer }; model: string; response_format?: string };
  // The words scripted for this turn are used up even when the answer never comes.
  const heard = sp.heard(body.file.data);
  const how = sp.take(req.path);
  if (how === 'hang' || how === 'stall') return sp.hang(res);
  const text = how === 'empty' ? '' : heard;
  if (body.response_format === 'text') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(text); return; }
  sendJson(res, 200, { text, usage: { type: 'duration', seconds: 1 } });
}
