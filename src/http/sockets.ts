import uWS from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { openSyncWindow } from '../sync-window.js';
import { parseCookies } from './cookies.js';
import { encodeBody, errorToResponse, statusLine } from './respond.js';
import { newRequestId } from './server.js';
import { clientIp } from './request.js';
import type { SocketConn, SocketEndpoint, UpgradeRequest } from './types.js';
import type { CorkHolder } from './cork-holder.js';
import { recordSocket, socketEndpoint } from '../metrics/record.js';

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
const sendOut = () => { out.result = out.ws!.send(out.message, out.binary); };

class Conn implements SocketConn<unknown> {
  readonly id = nextConnId++;
  closed = false;
  /** Set when the endpoint's open handler has run. */
  opened = false;
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
    this.ws.cork(() => this.ws.end(code, reason.slice(0, 120)));
  }
}

/** Mounts one WebSocket endpoint. Upgrade checks may be async; headers are read before the first await. */
export function attachSocket(app: uWS.TemplatedApp, ep: SocketEndpoint<any>, registry: SocketRegistry, log: Logger, trustProxy: number, holder: CorkHolder): void {
  const endpoint = socketEndpoint(ep.path);
  app.ws<UserData>(ep.path, {
    maxPayloadLength: ep.maxPayloadBytes ?? 64 * 1024,
    idleTimeout: ep.idleTimeoutSec ?? 60,
    maxBackpressure: ep.maxBackpressureBytes ?? 1024 * 1024,
    closeOnBackpressureLimit: 1,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const headers: Record<string, string> = {};
      req.forEach((k, v) => { headers[k] = v; });
      const key = headers['sec-websocket-key'] ?? '';
      const protocol = headers['sec-websocket-protocol'] ?? '';
      const extensions = headers['sec-websocket-extensions'] ?? '';
      const ac = new AbortController();
      let aborted = false;
      res.onAborted(() => { aborted = true; ac.abort(); });
      const ip = clientIp(res, headers, trustProxy);
      const up: UpgradeRequest = {
        path: req.getUrl(), query: new URLSearchParams(req.getQuery() ?? ''), headers,
        cookies: parseCookies(headers.cookie), ip, requestId: newRequestId(headers['x-request-id']), signal: ac.signal,
      };
      // Store reads answer at once during the upgrade, so it completes inside this callback (src/sync-window.ts).
      openSyncWindow();
      Promise.resolve()
        .then(() => ep.upgrade(up))
        .then(
          (data) => { if (!aborted) holder.run(() => res.cork(() => res.upgrade<UserData>({ data, ip, conn: undefined }, key, protocol, extensions, context))); },
          (err) => {
            if (aborted) return;
            const answer = errorToResponse(err, log);
            const { bytes } = encodeBody(answer);
            res.cork(() => {
              res.writeStatus(statusLine(answer.status ?? 400));
              res.writeHeader('Content-Type', 'application/json; charset=utf-8');
              for (const [k, v] of Object.entries(answer.headers ?? {})) res.writeHeader(k, v);
              res.end(bytes);
            });
          },
        );
    },
    open: (ws) => {
      const ud = ws.getUserData();
      const conn = new Conn(ws, ud.data, ud.ip);
      ud.conn = conn;
      registry.open.add(conn);
      recordSocket(endpoint, 1);
      // The handler runs once uWS has finished the upgrade (a microtask: before any frame or close of this socket
      // reaches us), so that it allocates nothing inside an unguarded late upgrade's cork (src/http/cork-holder.ts).
      queueMicrotask(() => {
        if (conn.closed) return;
        conn.opened = true;
        try { ep.open(conn); } catch (err) { log.error({ err, path: ep.path }, 'socket open handler failed'); conn.close(1011, 'internal error'); }
      });
    },
    message: (ws, message, isBinary) => {
      const conn = ws.getUserData().conn!;
      // The ArrayBuffer is only valid during this call. Text is decoded here; a binary frame is handed on as a view
      // (no copy: voice audio is relayed at once), so a handler that keeps one must copy it.
      const data = isBinary ? Buffer.from(message) : Buffer.from(message).toString('utf8');
      try { ep.message(conn, data, isBinary); } catch (err) { log.error({ err, path: ep.path }, 'socket message handler failed'); }
    },
    drain: (ws) => { const conn = ws.getUserData().conn; if (conn && ep.drain) ep.drain(conn); },
    close: (ws, code, message) => {
      const conn = ws.getUserData().conn;
      if (!conn) return;
      conn.closed = true;
      registry.open.delete(conn);
      recordSocket(endpoint, -1);
      if (!conn.opened) return; // closed before its open handler ran: the endpoint never saw it
      try { ep.close(conn, code, Buffer.from(message).toString('utf8')); } catch (err) { log.error({ err, path: ep.path }, 'socket close handler failed'); }
    },
  });
}
