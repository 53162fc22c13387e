import type { Logger } from '../kernel/log.js';

/** A request as route handlers see it: everything read up front, so no uWS object escapes src/http. */
export interface HttpRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The query string as sent, without '?' ('' when none): lets a route skip parsing an empty query. */
  rawQuery: string;
  params: Record<string, string>;
  /** Header names are lower case. */
  headers: Record<string, string>;
  cookies: Record<string, string>;
  ip: string;
  requestId: string;
  body: Buffer;
  /** Aborted when the client goes away before the answer is written. */
  signal: AbortSignal;
  log: Logger;
}

export interface HttpResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Several Set-Cookie values. */
  cookies?: string[];
  /** A Buffer or string is sent as is; anything else as JSON. */
  body?: unknown;
}

export type Handler = (req: HttpRequest) => Promise<HttpResponse> | HttpResponse;

export interface RouteOptions {
  /** Largest accepted body in bytes (defaults to config BODY_LIMIT_BYTES). */
  bodyLimitBytes?: number;
  /** Answer CORS preflight and add Access-Control-* headers (widget endpoints). */
  cors?: boolean;
}

export interface SocketConn<D> {
  readonly id: number;
  readonly data: D;
  readonly ip: string;
  /** 'ok' sent, 'backpressure' queued beyond the soft limit, 'dropped' not sent (closed or over the hard limit). */
  send(message: string | Uint8Array, binary?: boolean): 'ok' | 'backpressure' | 'dropped';
  bufferedAmount(): number;
  close(code?: number, reason?: string): void;
  readonly closed: boolean;
}

/**
 * What an endpoint's upgrade is handed. `query` and `cookies` are parsed when first read: an endpoint may keep the
 * request and read them in admit, off the turn of the event loop that takes a burst of upgrades at once.
 */
export interface UpgradeRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  /** The headers the endpoint declared (SocketEndpoint.headers), lower case; absent ones are missing. */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: Record<string, string>;
  readonly ip: string;
  readonly requestId: string;
}

/** Why a socket was refused after its upgrade (what `admit` threw, in the error shape of the HTTP API). */
export interface SocketRefusal {
  /** The HTTP status the refusal would have had; the socket closes with 4000 + it (4400, 4401, 4403, 4404, 4429). */
  status: number;
  code: string;
  message: string;
  retryAfterMs?: number;
}

/**
 * One WebSocket endpoint. The upgrade is decided synchronously, from memory only, inside uWS's upgrade callback
 * (an upgrade finished after an await is unsafe in this uWS build, and nothing on the way to it may wait on
 * storage); what needs the store or Redis is loaded by `admit`, after the socket opened.
 */
export interface SocketEndpoint<D> {
  path: string;
  /**
   * The largest frame taken (default 64 KB). A larger one, up to twice this, is answered by `refuse` (status 413,
   * code bad_request) and the socket closes with 4413; past twice this the transport drops it (1006, no frame).
   */
  maxPayloadBytes?: number;
  idleTimeoutSec?: number;
  /** Bytes buffered for one socket before sends are dropped (slow consumers never slow the others). */
  maxBackpressureBytes?: number;
  /**
   * The request headers upgrade and admit read (lower case; `cookie` for UpgradeRequest.cookies). Only these are
   * copied out of the transport's request: a burst of hundreds of connects runs every upgrade in one loop turn.
   */
  headers?: readonly string[];
  /** Accept (return per-socket data) or refuse (throw ApiError; its status is answered). Synchronous, memory only. */
  upgrade(req: UpgradeRequest): D;
  /**
   * Loads what the socket needs (store reads, a shared limit), after the upgrade. Frames the client sends
   * meanwhile wait, in order, and reach `message` after `open`. A thrown error refuses the socket: `refuse` tells
   * the client why, then the socket closes with 4000 + the error's status (1011 for a server fault).
   */
  admit?(conn: SocketConn<D>): Promise<void>;
  /** Tells the client why the socket is being closed (a refused admit, a frame over maxPayloadBytes), in its own frame shape. */
  refuse?(conn: SocketConn<D>, why: SocketRefusal): void;
  open(conn: SocketConn<D>): void;
  /** A binary frame's Buffer is valid only during this call (copy it to keep it). */
  message(conn: SocketConn<D>, data: string | Buffer, isBinary: boolean): void;
  close(conn: SocketConn<D>, code: number, reason: string): void;
  drain?(conn: SocketConn<D>): void;
}
