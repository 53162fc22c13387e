/**
 * Gemini Live's socket behind the outbound address guard. The SDK's Live class writes the URL (with the key),
 * the headers and the setup message, then hands the socket to a WebSocketFactory; GoogleGenAI builds its Live
 * with the stock factory, whose `ws` socket resolves names freely. Live is exported and GoogleGenAI keeps its
 * ApiClient `protected`, so a subclass builds a second Live over the same ApiClient with the factory below: the SDK
 * keeps the protocol (URL, setup, message parsing) and this file owns only how the socket reaches the address.
 * That is the narrowest seam the SDK offers: no private field is touched and no protocol code is copied.
 */
import type { ClientRequestArgs } from 'node:http';
import { GoogleGenAI, Live, type GoogleGenAIOptions } from '@google/genai';
import WebSocket from 'ws';
import { checkLiteralHost, guardedLookup } from '../security/guarded-connector.js';

type SocketFactory = ConstructorParameters<typeof Live>[2];
type SocketCallbacks = Parameters<SocketFactory['create']>[2];

export interface GuardedSocketOptions {
  allowPrivateNetwork: boolean;
  handshakeTimeoutMs: number;
  /** Receives each socket as it is created, so its owner can close it before the SDK hands back a session. */
  onSocket?: (socket: GuardedLiveSocket) => void;
}

export class GuardedLiveSocket {
  private ws: WebSocket | null = null;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly callbacks: SocketCallbacks,
    private readonly opts: GuardedSocketOptions,
  ) {}

  connect(): void {
    // net connects to an IP literal without calling lookup, so literals are checked here; the throw rejects live.connect.
    checkLiteralHost(new URL(this.url), this.opts);
    const options: WebSocket.ClientOptions & ClientRequestArgs = {
      headers: this.headers,
      lookup: guardedLookup(this.opts) as ClientRequestArgs['lookup'],
      handshakeTimeout: this.opts.handshakeTimeoutMs,
    };
    const ws = new WebSocket(this.url, options);
    ws.onopen = () => this.callbacks.onopen();
    ws.onmessage = (e) => {
      const text = typeof e.data === 'string' ? e.data : Buffer.isBuffer(e.data) ? e.data.toString('utf8') : '';
      // The SDK parses each frame in a promise nobody awaits: a frame that is not JSON would be an unhandled
      // rejection (a crash), so such a frame ends the session as a protocol error instead of being passed on.
      try {
        JSON.parse(text);
      } catch {
        this.callbacks.onerror({ error: new Error('Google Gemini sent a frame that is not JSON') });
        ws.close(1007, 'invalid JSON');
        return;
      }
      this.callbacks.onmessage({ data: text });
    };
    ws.onerror = (e) => this.callbacks.onerror(e);
    ws.onclose = (e) => this.callbacks.onclose(e);
    this.ws = ws;
  }

  send(message: string): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(message);
  }

  close(): void {
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    // A handshake still in flight is aborted; an open socket gets a normal close frame.
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else ws.close(1000);
  }
}

/** GoogleGenAI whose `guardedLive` opens its sockets through GuardedLiveSocket. */
export class GuardedGenAI extends GoogleGenAI {
  readonly guardedLive: Live;

  constructor(options: GoogleGenAIOptions, socket: GuardedSocketOptions) {
    super(options);
    const factory: SocketFactory = {
      create: (url, headers, callbacks) => {
        const s = new GuardedLiveSocket(url, headers, callbacks, socket);
        socket.onSocket?.(s);
        return s;
      },
    };
    this.guardedLive = new Live(this.apiClient, this.apiClient.clientOptions.auth, factory);
  }
}
