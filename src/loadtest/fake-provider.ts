/**
 * A simulated OpenAI-compatible provider for capacity tests: GET /v1/models and streamed POST
 * /v1/chat/completions (SSE), answering every request with `chunks` pieces `gapMs` apart and a usage record,
 * so the server does its whole reply path without anyone paying for tokens. It checks the bearer key it was
 * given, so only the bot set up for the test can use it. With `voice`, the same server is also a simulated OpenAI
 * Realtime engine (WebSocket /v1/realtime, src/loadtest/voice-engine.ts) and lists its realtime model.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIMULATED_REALTIME_MODEL, startVoiceEngine } from './voice-engine.js';

export const SIMULATED_MODEL = 'loadtest-simulated';

export interface FakeProviderOptions {
  host: string;
  port: number;
  apiKey: string;
  chunks: number;
  gapMs: number;
  /** Also a realtime voice engine: quiet that ends a spoken turn, and the length of each spoken reply (ms). */
  voice?: { silenceMs: number; replyMs: number };
}

export interface FakeProvider { port: number; requests: () => number; voiceSessions: () => number; close(): Promise<void> }

const WORDS = ['Thanks', 'for', 'asking.', 'Here', 'is', 'a', 'simulated', 'answer', 'from', 'the', 'capacity', 'test,', 'streamed', 'in', 'small', 'pieces.'];

export function startFakeProvider(o: FakeProviderOptions): Promise<FakeProvider> {
  let requests = 0;
  const models = [SIMULATED_MODEL, ...(o.voice ? [SIMULATED_REALTIME_MODEL] : [])].map((id) => ({ id, object: 'model', created: 1, owned_by: 'loadtest' }));
  const engine = o.voice ? startVoiceEngine({ apiKey: o.apiKey, ...o.voice }) : null;
  const json = (res: ServerResponse, status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization !== `Bearer ${o.apiKey}`) return json(res, 401, { error: { message: 'wrong API key for the load-test provider', type: 'invalid_request_error' } });
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path.endsWith('/models')) return json(res, 200, { object: 'list', data: models });
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) return json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { raw += c.length < 1_000_000 ? c : ''; });
    req.on('end', () => { requests++; void stream(res, raw); });
  };
  async function stream(res: ServerResponse, raw: string): Promise<void> {
    let inputChars = raw.length;
    try { inputChars = JSON.stringify(JSON.parse(raw).messages ?? '').length; } catch { /* count the raw body */ }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const head = `data: {"id":"lt","object":"chat.completion.chunk","created":1,"model":"${SIMULATED_MODEL}","choices":[`;
    for (let i = 0; i < o.chunks; i++) {
      if (res.destroyed) return;
      res.write(`${head}{"index":0,"delta":{"content":${JSON.stringify((i ? ' ' : '') + WORDS[i % WORDS.length])}},"finish_reason":null}]}\n\n`);
      if (o.gapMs) await new Promise((r) => setTimeout(r, o.gapMs));
    }
    res.write(`${head}{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
    res.write(`${head}],"usage":{"prompt_tokens":${Math.ceil(inputChars / 4)},"completion_tokens":${o.chunks}}}\n\n`);
    res.end('data: [DONE]\n\n');
  }
  const server: Server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  server.on('upgrade', (req, socket, head) => {
    if (engine) return engine.upgrade(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`the simulated provider could not listen on ${o.host}:${o.port} (${err.code}); choose --provider-port`)));
    server.listen(o.port, o.host, () => resolve({
      port: (server.address() as AddressInfo).port,
      requests: () => requests,
      voiceSessions: () => engine?.sessions() ?? 0,
      close: () => new Promise<void>((r) => { engine?.close(); server.closeAllConnections(); server.close(() => r()); }),
    }));
  });
}
