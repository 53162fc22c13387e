import uWS from 'uWebSockets.js';
import type { Logger } from '../kernel/log.js';
import { parseCookies } from './cookies.js';
import { encodeBody, errorToResponse, statusLine } from './respond.js';
import { newRequestId } from './server.js';
import { clientIp } from './request.js';
import { ApiError } from '../kernel/errors.js';
import type { SocketConn, SocketEndpoint, SocketRefusal, UpgradeRequest } from './types.js';
import { recordSocket, socketEndpoint } from '../metrics/record.js';
import { closeReason, utf8 } from './utf8.js';

export interface SocketRegistry { open: Set<SocketConn<unknown>> }

/** `conn` is declared from the upgrade on, so setting it at open keeps the object's shape (no extra property store). */
interface UserData { data: unknown; ip: string; conn: Conn | undefined }

let nextConnId = 1;

/**
 * The frame cork() sends: set just before, cleared after. cork() runs its callback at once, so one module-level
 * slot and callback serve every socket (an idle socket holds no closure or buffer object of its own). A send
 * made inside ws.send (a close handler run by the backpressure limit) finishes before the outer call's result
 * is stored, so the outer send still reads its own result.
 */
const out: { ws: uWS.WebSocket<UserData> | null; message: string | Uint8Array; binary: boolean; result: number } = { ws: null, message: '', binary: false, result: 2 };
const sendOut = () => { out.result = out.ws!.send(utf8(out.message), out.binary); };

/** UpgradeRequest: the query and cookies parsed when first read (an endpoint may read them in admit, later). */
class Upgrade implements UpgradeRequest {
  private parsedQuery: URLSearchParams | null = null;
  private parsedCookies: Record<string, string> | null = null;
  constructor(readonly path: string, private readonly rawQuery: string, readonly headers: Record<string, string>, readonly ip: string, readonly requestId: string) {}
  get query(): URLSearchParams { return (this.parsedQuery ??= new URLSearchParams(this.rawQuery)); }
  get cookies(): Record<string, string> { return (this.parsedCookies ??= parseCookies(this.headers.cookie)); }
}

/** Frames a socket may send before it is admitted (they wait for `open`); past either, it is closed (1008). */
const MAX_EARLY_FRAMES = 64;
const MAX_EARLY_BYTES = 256 * 1024;

class Conn implements SocketConn<unknown> {
  readonly id = nextConnId++;
  closed = false;
  /** Set when the endpoint's open handler has run. */
  opened = false;
  /** Frames that came while the endpoint's admit was under way (null once opened, or when there is no admit). */
  early: Array<{ data: string | Buffer; isBinary: boolean }> | null = null;
  earlyBytes = 0;
  constructor(private ws: uWS.WebSocket<UserData>, readonly data: unknown, readonly ip: string) {}
  send(message: string | Uint8Array, binary = false): 'ok' | 'backpressure' | 'dropped' {
    if (this.closed) return 'dropped';
    // Corked, the frame goes out when the cork ends: sent from outside a uWS callback (after an await, from a
    // timer or an immediate), an uncorked frame can wait in uWS's buffer until something else wakes the loop.
    out.ws = this.ws; out.message = message; out.binary = binary; out.result = 2;
    this.ws.cork(sendOut);
    out.ws = null; out.message = '';
    return out.result === 1 ? 'ok' : out.result === 0 ? 'backpressure' : 'dropped';
  }
  bufferedAmount() { return this.closed ? 0 : this.ws.getBufferedAmount(); }
  close(code = 1000, reason = '') {
    if (this.closed) return;
    this.closed = true;
    this.ws.cork(() => this.ws.end(code, utf8(closeReason(reason))));
  }
}

/** What a refused socket is told: an ApiError as it is; anything else is a server fault (logged). */
function refusalOf(err: unknown, log: Logger): SocketRefusal {
  const answer = errorToResponse(err, log);
  const { code, message } = (answer.body as { error: { code: string; message: string } }).error;
  const retryAfter = err instanceof ApiError ? Number(err.headers['Retry-After']) : NaN;
  return { status: answer.status ?? 500, code, message, ...(retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}) };
}

/** What the client reads before a frame over the endpoint's maxPayloadBytes closes its socket (4413). */
export const frameTooLarge = (bytes: number, max: number): SocketRefusal => ({
  status: 413, code: 'bad_request',
  message: `the frame was ${bytes} bytes; this socket takes frames of at most ${max} bytes, so it is closed; reconnect and send smaller frames`,
});

/** The close code of a refusal: 4000 + a 4xx status (the application's range, RFC 6455 7.4.2); 1011 otherwise. */
export const refusalCloseCode = (status: number) => (status >= 400 && status < 500 ? 4000 + status : 1011);

/**
 * Mounts one WebSocket endpoint. The upgrade is answered inside uWS's callback, always (the endpoint's check is
 * synchronous); the endpoint's admit then runs after open, with frames held until it is done.
 */
export function attachSocket(app: uWS.TemplatedApp, ep: SocketEndpoint<any>, registry: SocketRegistry, log: Logger, trustProxy: number): void {
  const endpoint = socketEndpoint(ep.path);
  const deliver = (conn: Conn, data: string | Buffer, isBinary: boolean) => {
    try { ep.message(conn, data, isBinary); } catch (err) { log.error({ err, path: ep.path }, 'socket message handler failed'); }
  };
  const opened = (conn: Conn) => {
    if (conn.closed) return;
    conn.opened = true;
    try { ep.open(conn); } catch (err) { log.error({ err, path: ep.path }, 'socket open handler failed'); conn.close(1011, 'internal error'); return; }
    const early = conn.early;
    conn.early = null;
    if (early) for (const f of early) { if (conn.closed) break; deliver(conn, f.data, f.isBinary); }
  };
  const refused = (conn: Conn, err: unknown) => {
    if (conn.closed) return;
    const why = refusalOf(err, log);
    try { ep.refuse?.(conn, why); } catch (e) { log.error({ err: e, path: ep.path }, 'socket refuse handler failed'); }
    conn.close(refusalCloseCode(why.status), why.code);
  };
  const maxPayload = ep.maxPayloadBytes ?? 64 * 1024;
  /** A frame over maxPayload is answered and the socket closed, in the endpoint's words (frameTooLarge). */
  const tooLarge = (conn: Conn, bytes: number) => {
    if (conn.closed) return;
    try { ep.refuse?.(conn, frameTooLarge(bytes, maxPayload)); } catch (e) { log.error({ err: e, path: ep.path }, 'socket refuse handler failed'); }
    conn.close(refusalCloseCode(413), 'frame too large');
  };
  // The headers copied out of each upgrade: the endpoint's, and the transport's own (the client's address behind a
  // trusted proxy, the request id).
  const wanted = [...new Set([...(ep.headers ?? []), 'x-request-id', ...(trustProxy > 0 ? ['x-forwarded-for'] : [])])];
  app.ws<UserData>(ep.path, {
    // The transport takes twice the endpoint's limit, so a frame a little over it is answered rather than dropped.
    maxPayloadLength: maxPayload * 2,
    idleTimeout: ep.idleTimeoutSec ?? 60,
    maxBackpressure: ep.maxBackpressureBytes ?? 1024 * 1024,
    closeOnBackpressureLimit: 1,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const headers: Record<string, string> = {};
      for (const name of wanted) { const v = req.getHeader(name); if (v) headers[name] = v; }
      const ip = clientIp(res, headers, trustProxy);
      const up = new Upgrade(req.getUrl(), req.getQuery() ?? '', headers, ip, newRequestId(headers['x-request-id']));
      let data: unknown;
      try {
        data = ep.upgrade(up);
      } catch (err) {
        const answer = errorToResponse(err, log);
        const { bytes } = encodeBody(answer);
        res.cork(() => {
          res.writeStatus(statusLine(answer.status ?? 400));
          res.writeHeader('Content-Type', 'application/json; charset=utf-8');
          for (const [k, v] of Object.entries(answer.headers ?? {})) res.writeHeader(k, v);
          res.end(utf8(bytes));
        });
        return;
      }
      res.upgrade<UserData>({ data, ip, conn: undefined }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => {
      const ud = ws.getUserData();
      const conn = new Conn(ws, ud.data, ud.ip);
      ud.conn = conn;
      registry.open.add(conn);
      recordSocket(endpoint, 1);
      if (!ep.admit) return opened(conn);
      conn.early = [];
      let admitting: Promise<void>;
      try { admitting = ep.admit(conn); } catch (err) { admitting = Promise.reject(err); }
      admitting.then(() => opened(conn), (err: unknown) => refused(conn, err));
    },
    message: (ws, message, isBinary) => {
      const conn = ws.getUserData().conn!;
      if (message.byteLength > maxPayload) return tooLarge(conn, message.byteLength);
      if (conn.early) {
        // Before open: kept, in order (a copy: the ArrayBuffer is only valid during this call).
        conn.earlyBytes += message.byteLength;
        if (conn.early.length >= MAX_EARLY_FRAMES || conn.earlyBytes > MAX_EARLY_BYTES) { conn.close(1008, 'too many frames before ready'); return; }
        conn.early.push({ data: isBinary ? Buffer.from(new Uint8Array(message)) : Buffer.from(message).toString('utf8'), isBinary });
        return;
      }
      // The ArrayBuffer is only valid during this call. Text is decoded here; a binary frame is handed on as a view
      // (no copy: voice audio is relayed at once), so a handler that keeps one must copy it.
      deliver(conn, isBinary ? Buffer.from(message) : Buffer.from(message).toString('utf8'), isBinary);
    },
    drain: (ws) => { const conn = ws.getUserData().conn; if (conn?.opened && ep.drain) ep.drain(conn); },
    close: (ws, code, message) => {
      const conn = ws.getUserData().conn;
      if (!conn) return;
      conn.closed = true;
      registry.open.delete(conn);
      recordSocket(endpoint, -1);
      if (!conn.opened) return; // closed before it was admitted and opened: the endpoint never saw it
      try { ep.close(conn, code, Buffer.from(message).toString('utf8')); } catch (err) { log.error({ err, path: ep.path }, 'socket close handler failed'); }
    },
  });
}
