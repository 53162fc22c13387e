import uWS from 'uWebSockets.js';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { ConfigError } from '../config/index.js';
import { ApiError, payloadTooLarge } from '../kernel/errors.js';
import { requestLogger, type Logger } from '../kernel/log.js';
import { compressJson } from './compress.js';
import { encodeBody, errorToResponse, statusLine } from './respond.js';
import type { Router } from './router.js';
import { IncomingRequest } from './request.js';
import type { HttpResponse } from './types.js';
import { attachSocket, type SocketRegistry } from './sockets.js';
import type { SocketEndpoint } from './types.js';
import { recordHttp } from '../metrics/record.js';
import { utf8 } from './utf8.js';

export interface HttpServerOptions {
  logger: Logger;
  router: Router;
  sockets?: SocketEndpoint<any>[];
  bodyLimitBytes: number;
  trustProxy: number;
}

export interface HttpServer {
  /** `shared`: the port is shared with the other processes of a scale-out group (SO_REUSEPORT) on purpose. */
  listen(host: string, port: number, shared?: boolean): Promise<number>;
  /** Stops accepting connections, closes sockets (1001) and waits for requests in flight (up to timeoutMs). */
  close(timeoutMs?: number): Promise<void>;
  readonly inFlight: number;
}

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);
/**
 * uWS listens with SO_REUSEPORT by default, so a second server on a port in use would start and take half the
 * connections. One process owns its port; scale-out, which shares a port on purpose, changes only this
 * (docs/decisions.md). The constant is in the native module, not in its typings.
 */
const LISTEN_OPTIONS: number = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;
type ListenWithOptions = (host: string, port: number, options: number, cb: (ls: uWS.us_listen_socket | false) => void) => unknown;

/** uWS says only that it could not listen; Node's own listen on the same address tells why. */
async function listenFailure(host: string, port: number): Promise<ConfigError> {
  const code = await new Promise<string | null>((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? null));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new ConfigError(`port ${port} (${where}) is already in use, perhaps by another server started earlier. Stop that process, or set PORT to a free port.`);
  }
  if (code === 'EACCES') return new ConfigError(`no permission to listen on port ${port} (${where}): use a port above 1023, or run with the privilege to bind it.`);
  if (code === 'EADDRNOTAVAIL') return new ConfigError(`HOST ${host} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0 for all.`);
  return new ConfigError(`could not listen on ${where}${code ? ` (${code})` : ''}: check that PORT and HOST are free and belong to this machine.`);
}

const requestIdPrefix = randomBytes(3).toString('hex');
let requestCounter = 0;

export function newRequestId(headerValue?: string): string {
  if (headerValue && /^[\w.-]{1,64}$/.test(headerValue)) return headerValue;
  return `${requestIdPrefix}-${(++requestCounter).toString(36)}`;
}

/** The Content-Type a handler set, whatever its case (undefined: none). */
function contentTypeOf(headers: Record<string, string>): string | undefined {
  for (const k in headers) if (k.length === 12 && k.toLowerCase() === 'content-type') return headers[k];
  return undefined;
}

export function createHttpServer(opts: HttpServerOptions): HttpServer {
  const app = uWS.App();
  const log = opts.logger;
  const accessLog = requestLogger(log);
  const listenSockets: uWS.us_listen_socket[] = [];
  let inFlight = 0;
  const sockets: SocketRegistry = { open: new Set() };
  const listenOn = (host: string, port: number, options: number) =>
    new Promise<uWS.us_listen_socket | false>((resolve) => { (app as unknown as { listen: ListenWithOptions }).listen(host, port, options, resolve); });
  for (const ep of opts.sockets ?? []) attachSocket(app, ep, sockets, log, opts.trustProxy);

  app.any('/*', (res, req) => {
    const started = performance.now();
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const headers: Record<string, string> = {};
    req.forEach((k, v) => { headers[k] = v; });
    const requestId = newRequestId(headers['x-request-id']);
    const request = new IncomingRequest(method, path, req.getQuery() ?? '', headers, res, opts.trustProxy, requestId, log);
    let done = false;
    /** The metrics label: the route's pattern, never the path (which holds ids). */
    let operation = 'unmatched';
    inFlight++;
    res.onAborted(() => { done = true; request.abort(); inFlight--; accessLog.info({ requestId, method, path, aborted: true }, 'request aborted'); });

    const finish = (answer: HttpResponse, corsOrigin: string | null) => {
      if (done) return;
      done = true;
      request.answered();
      inFlight--;
      const status = answer.status ?? 200;
      const hdrs = answer.headers;
      const { bytes: raw, contentType: byBody } = encodeBody(answer);
      // A type the handler set wins (a Buffer of JSON is compressed as JSON).
      const given = hdrs && contentTypeOf(hdrs);
      const contentType = given ?? byBody;
      const { bytes, encoding } = compressJson(raw, contentType, headers['accept-encoding']);
      res.cork(() => {
        res.writeStatus(statusLine(status));
        res.writeHeader('X-Request-Id', requestId);
        res.writeHeader('X-Content-Type-Options', 'nosniff');
        if (corsOrigin) {
          res.writeHeader('Access-Control-Allow-Origin', corsOrigin);
          res.writeHeader('Vary', 'Origin');
        }
        if (encoding) { res.writeHeader('Content-Encoding', encoding); res.writeHeader('Vary', 'Accept-Encoding'); }
        if (contentType && given === undefined) res.writeHeader('Content-Type', contentType);
        if (hdrs) for (const k in hdrs) res.writeHeader(k, hdrs[k]);
        if (answer.cookies) for (const c of answer.cookies) res.writeHeader('Set-Cookie', c);
        if (method === 'HEAD') res.endWithoutBody(Buffer.byteLength(bytes)); else res.end(utf8(bytes));
      });
      const ms = performance.now() - started;
      recordHttp(operation, status, ms);
      accessLog.info({ requestId, method, path, status, ms: Math.round(ms * 10) / 10 }, 'request');
    };

    const match = opts.router.match(method === 'OPTIONS' && headers['access-control-request-method'] ? headers['access-control-request-method'].toUpperCase() : method, path);
    if (match.kind === 'not_found') return finish(errorToResponse(new ApiError('not_found', 404, `no route for ${method} ${path}`), log), null);
    if (match.kind === 'method_not_allowed') {
      return finish({ ...errorToResponse(new ApiError('bad_request', 405, `method ${method} is not allowed on ${path}; use ${match.allowed.join(', ')}`), log), headers: { Allow: match.allowed.join(', ') } }, null);
    }
    const { route, params } = match;
    operation = route.operation;
    request.params = params;
    const corsOrigin = route.options.cors && headers.origin ? headers.origin : null;
    if (method === 'OPTIONS') {
      return finish({ status: 204, headers: corsOrigin ? {
        'Access-Control-Allow-Methods': route.method,
        'Access-Control-Allow-Headers': headers['access-control-request-headers'] ?? 'Content-Type',
        'Access-Control-Max-Age': '600',
      } : {} }, corsOrigin);
    }

    const failed = (err: unknown) => finish(errorToResponse(err, request.log), corsOrigin);
    const run = () => {
      let answer: ReturnType<typeof route.handler>;
      try { answer = route.handler(request); } catch (err) { return failed(err); }
      if (answer instanceof Promise) answer.then((a) => finish(a, corsOrigin), failed);
      else finish(answer, corsOrigin);
    };

    const contentLength = Number(headers['content-length'] ?? 0);
    const hasBody = !BODYLESS.has(method) && (contentLength > 0 || headers['transfer-encoding'] !== undefined);
    if (!hasBody) return run();
    const limit = route.options.bodyLimitBytes ?? opts.bodyLimitBytes;
    if (contentLength > limit) return finish(errorToResponse(payloadTooLarge(limit), log), corsOrigin);
    const chunks: Buffer[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) { finish(errorToResponse(payloadTooLarge(limit), log), corsOrigin); return; }
      chunks.push(Buffer.from(new Uint8Array(chunk))); // copy: uWS reuses the chunk's memory
      if (isLast) { request.body = Buffer.concat(chunks, size); run(); }
    });
  });

  return {
    get inFlight() { return inFlight; },
    async listen(host, port, shared = false) {
      // 0: uWS's default, SO_REUSEPORT; the exclusive option still refuses a server started by mistake.
      const ls = await listenOn(host, port, shared ? 0 : LISTEN_OPTIONS);
      if (!ls) throw await listenFailure(host, port);
      listenSockets.push(ls);
      return uWS.us_socket_local_port(ls as unknown as uWS.us_socket);
    },
    async close(timeoutMs = 10_000) {
      for (const ls of listenSockets.splice(0)) uWS.us_listen_socket_close(ls);
      for (const conn of [...sockets.open]) conn.close(1001, 'server shutting down');
      const deadline = Date.now() + timeoutMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      app.close();
    },
  };
}
