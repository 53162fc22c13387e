import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { checkRequest, endpointFor, parseBody, type Endpoint, type ParsedBody, type Problem, type Refuse } from './strict.js';

/**
 * The one scripting model of every fake provider. Tests queue turns; each model call (chat
 * completion, generateContent...) takes the next one. With nothing queued a fake answers
 * deterministically: it echoes the last user message as "You said: <text>".
 */
export interface ScriptedTurn {
  /** Reply text; an array is sent as exactly those stream chunks. */
  text?: string | string[];
  toolCalls?: Array<{ id?: string; name: string; arguments: Record<string, unknown> | string }>;
  /** Answer with this HTTP error (in the provider's error format) instead of a reply. */
  error?: { status: number; message?: string };
  /** Wait this long (real time) before answering: for abort and timeout tests. */
  delayMs?: number;
  /** Real milliseconds between streamed text chunks (default none: all at once), as a model writing as it thinks. */
  chunkIntervalMs?: number;
  /** Token counts to report; by default counted from the texts (about four characters a token). */
  usage?: { inputTokens: number; outputTokens: number };
  finishReason?: 'stop' | 'length';
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; for multipart, the fields (files as { filename, type, size, data }); else the raw bytes, or undefined. */
  body: any;
  /** Why the fake refused it as the real API would (strict.ts), when it did. */
  refused?: Problem;
  /** The client hung up before the answer was complete (an aborted request). */
  aborted?: boolean;
}

export interface Usage { inputTokens: number; outputTokens: number }

export interface FakeServer {
  /** Origin of the server, e.g. http://127.0.0.1:41234 */
  url: string;
  /** What a ProviderConnection's baseUrl should be to use this fake. */
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Token usage the fake reported, one entry per model call. */
  usages: Usage[];
  script(turns: ScriptedTurn | ScriptedTurn[]): void;
  /** The next request whose path contains `pathPart` fails with this status (provider error format). */
  failNext(pathPart: string, status: number, message?: string): void;
  /** Body of the last recorded request whose path contains `pathPart`. */
  lastBody(pathPart: string): any;
  close(): Promise<void>;
}

export interface FakeOptions { apiKey?: string }

export type Handler = (req: RecordedRequest, res: ServerResponse, ctx: HandlerContext) => Promise<void> | void;
export interface HandlerContext {
  /** The next scripted turn, or the default reply to the conversation's last message. */
  nextTurn(last: LastMessage): ScriptedTurn;
  recordUsage(u: Usage): void;
  origin: string;
}
/** The latest user text or tool result of a conversation, which the default reply answers. */
export interface LastMessage { role: 'user' | 'tool'; text: string }
export type ErrorWriter = (res: ServerResponse, status: number, message: string) => void;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Splits text into word-sized stream chunks ("Hello ", "there") so streaming is visible. */
export function chunkText(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

export function countTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export function turnChunks(turn: ScriptedTurn): string[] {
  if (Array.isArray(turn.text)) return turn.text;
  return turn.text ? chunkText(turn.text) : [];
}

export function argsText(a: Record<string, unknown> | string): string {
  return typeof a === 'string' ? a : JSON.stringify(a);
}

async function readBody(req: IncomingMessage): Promise<ParsedBody> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return parseBody(Buffer.concat(chunks), req.headers['content-type'] ?? '');
}

/** Starts a loopback server on port 0 with request recording, scripting and one-shot failures. */
export async function startFake(opts: {
  apiKey: string;
  baseSuffix: string;
  authorized(req: RecordedRequest): boolean;
  writeError: ErrorWriter;
  unauthorizedMessage: string;
  unauthorizedStatus?: number;
  handle: Handler;
  /** The requests each endpoint takes (strict.ts); a request one of them refuses never reaches `handle`. */
  endpoints?: readonly Endpoint[];
  /** How the API words a refusal (status, message, error shape). */
  refuse?: Refuse;
  /** WebSocket upgrades (realtime/live voice endpoints); without it upgrades are refused. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: HandlerContext) => void;
}): Promise<FakeServer> {
  const queue: ScriptedTurn[] = [];
  const failures: Array<{ pathPart: string; status: number; message: string }> = [];
  const requests: RecordedRequest[] = [];
  const usages: Usage[] = [];
  let origin = '';

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const parsed = await readBody(req);
      const rec: RecordedRequest = {
        method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body: parsed.body,
      };
      requests.push(rec);
      res.once('close', () => { if (!res.writableEnded) rec.aborted = true; });
      if (!opts.authorized(rec)) return opts.writeError(res, opts.unauthorizedStatus ?? 401, opts.unauthorizedMessage);
      // As the real service: a request it cannot read or that breaks its schema is refused before anything else.
      const endpoint = endpointFor(opts.endpoints ?? [], rec.method, rec.path);
      const problem = endpoint ? checkRequest(endpoint, req.headers['content-type'] ?? '', parsed) : null;
      if (problem) {
        rec.refused = problem;
        if (process.env.FAKE_REFUSALS) process.stderr.write(`fake refused ${rec.method} ${rec.path}: ${JSON.stringify(problem)}\n`);
        return opts.refuse!(res, problem, endpoint);
      }
      const f = failures.findIndex((x) => rec.path.includes(x.pathPart));
      if (f >= 0) { const [x] = failures.splice(f, 1); return opts.writeError(res, x.status, x.message); }
      await opts.handle(rec, res, ctxFor());
    })().catch((err: Error) => {
      if (!res.headersSent) opts.writeError(res, 500, `fake failed: ${err.message}`);
      else res.destroy();
    });
  });
  const ctxFor = (): HandlerContext => ({
    origin,
    nextTurn: (last) => queue.shift() ?? { text: last.role === 'tool' ? `The tool said: ${last.text}` : `You said: ${last.text}` },
    recordUsage: (u) => usages.push(u),
  });
  server.on('upgrade', (req, socket, head) => {
    if (!opts.upgrade) { socket.destroy(); return; }
    opts.upgrade(req, socket, head, ctxFor());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    baseUrl: origin + opts.baseSuffix,
    apiKey: opts.apiKey,
    requests,
    usages,
    script: (turns) => { queue.push(...(Array.isArray(turns) ? turns : [turns])); },
    failNext: (pathPart, status, message = `scripted failure ${status}`) => { failures.push({ pathPart, status, message }); },
    lastBody: (pathPart) => [...requests].reverse().find((r) => r.path.includes(pathPart))?.body,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Waits a turn's chunkIntervalMs between two streamed chunks; false when the client hung up meanwhile. */
export async function chunkPause(turn: ScriptedTurn, res: ServerResponse): Promise<boolean> {
  if (!turn.chunkIntervalMs) return !res.destroyed;
  await new Promise<void>((resolve) => {
    const closed = () => { clearTimeout(t); resolve(); };
    const t = setTimeout(() => { res.off('close', closed); resolve(); }, turn.chunkIntervalMs);
    res.once('close', closed);
  });
  return !res.destroyed && !res.writableEnded;
}

/** Applies a turn's delay and scripted error; true when the error was sent and the handler should stop. */
export async function turnPrelude(turn: ScriptedTurn, res: ServerResponse, writeError: ErrorWriter): Promise<boolean> {
  // The wait ends early when the client hangs up, so an aborted test leaves no timer behind.
  if (turn.delayMs) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, turn.delayMs);
      res.once('close', () => { clearTimeout(t); resolve(); });
    });
  }
  if (res.destroyed) return true;
  if (turn.error) { writeError(res, turn.error.status, turn.error.message ?? `scripted error ${turn.error.status}`); return true; }
  return false;
}
