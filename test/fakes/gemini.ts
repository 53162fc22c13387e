import type { ServerResponse } from 'node:http';
import { fakeAudio } from './audio.js';
import { fakeEmbedding } from './embeddings.js';
import { createFakeLive, type FakeLive } from './gemini-live.js';
import { GEMINI_ENDPOINTS, refuseGemini } from './gemini-schemas.js';
import { mountSpeech, speechMs, type FakeSpeechControl, type SpeechMount } from './speech-stream.js';
import {
  argsText, chunkPause, countTokens, sendJson, startFake, turnChunks, turnPrelude,
  type FakeOptions, type FakeServer, type HandlerContext, type LastMessage, type RecordedRequest,
} from './script.js';

/**
 * A fake Gemini API (generativelanguage, v1beta): models, generateContent, streamGenerateContent
 * (SSE), embedContent and batchEmbedContents (requests checked as the API checks them: gemini-schemas.ts), speech replies as raw PCM (streamed as it is made through
 * streamGenerateContent: `speech`, speech-stream.ts), Google's error JSON, and the
 * Live API's WebSocket (`fake.live`, gemini-live.ts). baseUrl is the origin (the SDK adds /v1beta).
 */
export const FAKE_GEMINI_MODELS = [
  { name: 'gemini-2.5-flash', actions: ['generateContent', 'countTokens', 'createCachedContent'], thinking: true },
  { name: 'gemini-3-flash-preview', actions: ['generateContent', 'countTokens'], thinking: true },
  { name: 'gemini-2.0-flash', actions: ['generateContent', 'countTokens'] },
  { name: 'gemini-2.5-flash-preview-tts', actions: ['generateContent', 'countTokens'] },
  { name: 'gemini-2.5-flash-native-audio-preview-09-2025', actions: ['bidiGenerateContent', 'countTokens'] },
  { name: 'gemini-3.8-live', actions: ['bidiGenerateContent', 'countTokens'] },
  { name: 'gemini-embedding-001', actions: ['embedContent', 'countTextTokens'] },
  { name: 'imagen-4.0-generate-001', actions: ['predict'] },
];

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE',
};

export function writeGeminiError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { code: status, message, status: STATUS[status] ?? 'UNKNOWN' } });
}

type Part = { text?: string; thought?: boolean; functionCall?: unknown; functionResponse?: { name: string; response: unknown } };
type Content = { role?: string; parts?: Part[] };

export interface FakeGemini extends FakeServer {
  live: FakeLive;
  speech: FakeSpeechControl;
}

export async function startFakeGemini(opts: FakeOptions = {}): Promise<FakeGemini> {
  const apiKey = opts.apiKey ?? 'test-key';
  const sp = mountSpeech();
  const live = createFakeLive({ apiKey, models: FAKE_GEMINI_MODELS.filter((m) => m.actions.includes('bidiGenerateContent')).map((m) => m.name) });
  const server = await startFake({
    apiKey,
    baseSuffix: '',
    authorized: (r) => (r.headers['x-goog-api-key'] ?? r.query.key) === apiKey,
    writeError: writeGeminiError,
    endpoints: GEMINI_ENDPOINTS,
    refuse: refuseGemini,
    // Gemini answers a wrong key with 400, not 401.
    unauthorizedStatus: 400,
    unauthorizedMessage: 'API key not valid. Please pass a valid API key.',
    handle: async (req, res, ctx) => {
      if (req.method === 'GET' && req.path === '/v1beta/models') {
        return sendJson(res, 200, {
          models: FAKE_GEMINI_MODELS.map((m) => ({
            name: `models/${m.name}`, displayName: m.name.replace(/-/g, ' '), version: '001',
            inputTokenLimit: 1_048_576, outputTokenLimit: 65_536, supportedGenerationMethods: m.actions,
            ...(m.thinking ? { thinking: true } : {}),
          })),
        });
      }
      const m = /^\/v1beta\/models\/([^:/]+):(\w+)$/.exec(req.path);
      if (req.method === 'POST' && m) {
        const [, model, method] = m;
        if (!FAKE_GEMINI_MODELS.some((x) => x.name === model)) return writeGeminiError(res, 404, `models/${model} is not found for API version v1beta`);
        if (method === 'generateContent') return generate(req, res, ctx, model, false);
        if (method === 'streamGenerateContent') return generate(req, res, ctx, model, true, sp);
        if (method === 'embedContent') return sendJson(res, 200, { embedding: { values: fakeEmbedding(partsText(req.body?.content?.parts), req.body?.outputDimensionality) } });
        if (method === 'batchEmbedContents') {
          const requests = (req.body?.requests ?? []) as Array<{ content?: Content; outputDimensionality?: number }>;
          return sendJson(res, 200, { embeddings: requests.map((r) => ({ values: fakeEmbedding(partsText(r.content?.parts), r.outputDimensionality) })) });
        }
      }
      writeGeminiError(res, 404, `Method not found: ${req.method} ${req.path}`);
    },
    upgrade: live.upgrade,
  });
  // The HTTP server's close does not reach upgraded sockets, so the Live sessions are closed first.
  return { ...server, live: live.live, speech: sp.control, close: async () => { live.live.closeAll(); await server.close(); } };
}

function partsText(parts: Part[] | undefined): string {
  return (parts ?? []).map((p) => p.text ?? '').join(' ');
}

function lastMessage(contents: Content[]): LastMessage {
  const last = [...contents].reverse().find((c) => c.role !== 'model');
  const fr = last?.parts?.find((p) => p.functionResponse)?.functionResponse;
  if (fr) return { role: 'tool', text: JSON.stringify(fr.response) };
  return { role: 'user', text: partsText(last?.parts) };
}

async function generate(req: RecordedRequest, res: ServerResponse, ctx: HandlerContext, model: string, stream: boolean, sp?: SpeechMount): Promise<void> {
  const body = req.body as { contents: Content[]; generationConfig?: { responseModalities?: string[]; speechConfig?: any } };
  const usageBase = countTokens(JSON.stringify(body.contents));

  if (body.generationConfig?.responseModalities?.includes('AUDIO')) {
    const voice = body.generationConfig.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName ?? 'Kore';
    if (stream && sp) return streamSpeech(req, res, ctx, model, sp, partsText(body.contents.at(-1)?.parts), usageBase);
    const pcm = fakeAudio(partsText(body.contents.at(-1)?.parts), voice, 'pcm');
    const usage = { inputTokens: usageBase, outputTokens: Math.ceil(pcm.length / 32) };
    ctx.recordUsage(usage);
    return sendJson(res, 200, {
      candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: pcm.toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: usage.inputTokens, candidatesTokenCount: usage.outputTokens, totalTokenCount: usage.inputTokens + usage.outputTokens },
      modelVersion: model,
    });
  }

  const turn = ctx.nextTurn(lastMessage(body.contents));
  if (await turnPrelude(turn, res, writeGeminiError)) return;
  const chunks = turnChunks(turn);
  const calls = (turn.toolCalls ?? []).map((c, i) => ({
    functionCall: { name: c.name, args: JSON.parse(argsText(c.arguments)) },
    // Gemini 3 signs its function calls; the signature must come back with the call.
    thoughtSignature: Buffer.from(`sig-${c.name}-${i}`).toString('base64'),
  }));
  const usage = turn.usage ?? { inputTokens: usageBase, outputTokens: countTokens(chunks.join('') + JSON.stringify(calls)) };
  ctx.recordUsage(usage);
  const usageMetadata = { promptTokenCount: usage.inputTokens, candidatesTokenCount: usage.outputTokens, totalTokenCount: usage.inputTokens + usage.outputTokens };
  const finishReason = turn.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
  const response = (parts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason } : {}) }],
    ...(last ? { usageMetadata } : { usageMetadata: { promptTokenCount: usage.inputTokens, totalTokenCount: usage.inputTokens } }),
    modelVersion: model,
    responseId: `resp-${usage.inputTokens}`,
  });

  if (!stream) return sendJson(res, 200, response([...(chunks.length ? [{ text: chunks.join('') }] : []), ...calls], true));
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const pieces: unknown[][] = [...chunks.map((text) => [{ text }]), ...(calls.length ? [calls] : [])];
  if (pieces.length === 0) pieces.push([{ text: '' }]);
  for (const [i, parts] of pieces.entries()) {
    res.write(`data: ${JSON.stringify(response(parts, i === pieces.length - 1))}\r\n\r\n`);
    if (!(await chunkPause(turn, res))) return;
  }
  res.end();
}

/** Speech streamed as it is made: SSE events, each a candidate with a piece of PCM (24 kHz) as inline data. */
async function streamSpeech(req: RecordedRequest, res: ServerResponse, ctx: HandlerContext, model: string, sp: SpeechMount, text: string, inputTokens: number): Promise<void> {
  if (!/tts/.test(model)) return writeGeminiError(res, 400, `models/${model} does not support the requested response modalities: audio`);
  const how = sp.take(req.path);
  if (how === 'hang') return sp.hang(res);
  const ms = speechMs(text, sp.control.msPerChar);
  // Gemini counts 25 audio tokens a second.
  const usage = { inputTokens, outputTokens: Math.ceil((ms / 1000) * 25) };
  ctx.recordUsage(usage);
  const usageMetadata = { promptTokenCount: usage.inputTokens, candidatesTokenCount: usage.outputTokens, totalTokenCount: usage.inputTokens + usage.outputTokens };
  const event = (parts: unknown[], last: boolean) => `data: ${JSON.stringify({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    ...(last ? { usageMetadata } : {}), modelVersion: model,
  })}\r\n\r\n`;
  if (how === 'empty') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.end(event([], true)); return; }
  return sp.stream(res, ms, { 'content-type': 'text/event-stream' },
    (pcm, _at, last) => event([{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: pcm.toString('base64') } }], last), how);
}
