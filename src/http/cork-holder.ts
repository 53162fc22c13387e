import uWS from 'uWebSockets.js';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import type { Logger } from '../log.js';

const RECONNECT_MS = 1000;

/**
 * Runs a WebSocket upgrade that finishes after an await (a Redis round trip, a MongoDB read) safely.
 *
 * In this uWS build, res.cork(() => res.upgrade(...)) outside uWS's own callback can close the new socket right
 * after open (1006, no reason): the upgrade reallocates the socket in place, cork() does not notice, and then
 * reads the freed HTTP state; whatever native memory was allocated meanwhile decides whether it "sees"
 * Connection: close (uNetworking/uWebSockets#1929, fixed upstream after this build). cork() skips that epilogue
 * when another socket already holds the loop's cork, so the upgrade runs inside the cork of a socket kept for the
 * purpose: this process's own loopback WebSocket, on a private port (127.0.0.1:0, so the kernel cannot hand it to
 * another process of a group sharing PORT) and an unguessable path. Until it is connected (the first moments
 * after start), upgrades run as before.
 */
export class CorkHolder {
  private held: uWS.WebSocket<unknown> | null = null;
  private client: WebSocket | null = null;
  private listenSocket: uWS.us_listen_socket | null = null;
  private stopped = false;
  private readonly path = `/_internal/cork/${randomBytes(16).toString('hex')}`;

  constructor(private readonly app: uWS.TemplatedApp, private readonly log: Logger) {
    app.ws(this.path, {
      idleTimeout: 0,
      maxPayloadLength: 16,
      upgrade: (res, req, context) => {
        res.upgrade({}, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      open: (ws) => { if (this.stopped || this.held) ws.end(1000); else this.held = ws; },
      close: (ws) => { if (this.held === ws) this.held = null; },
    });
  }

  /** Runs `upgrade` (which calls res.cork(() => res.upgrade(...))) inside the held socket's cork. */
  run(upgrade: () => void): void {
    if (this.held) this.held.cork(upgrade);
    else upgrade();
  }

  /** Connects to the private loopback port `listen` opens (again after a drop, until stop). */
  async start(listen: () => Promise<uWS.us_listen_socket | false>): Promise<void> {
    const ls = await listen();
    if (!ls) { this.log.warn('could not open the loopback port that keeps late WebSocket upgrades safe; they run unguarded'); return; }
    this.listenSocket = ls;
    await new Promise<void>((ready) => this.connect(uWS.us_socket_local_port(ls as unknown as uWS.us_socket), ready));
  }

  private connect(port: number, ready?: () => void): void {
    if (this.stopped) return ready?.();
    const client = new WebSocket(`ws://127.0.0.1:${port}${this.path}`, { perMessageDeflate: false });
    this.client = client;
    client.once('open', () => { (client as unknown as { _socket?: { unref(): void } })._socket?.unref(); ready?.(); ready = undefined; });
    client.on('error', (err) => { this.log.debug({ err }, 'cork holder socket error'); });
    client.once('close', () => {
      ready?.();
      if (this.stopped) return;
      setTimeout(() => this.connect(port), RECONNECT_MS).unref();
    });
  }

  stop(): void {
    this.stopped = true;
    this.client?.terminate();
    this.client = null;
    if (this.listenSocket) uWS.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
  }
}
