/**
 * Opens the OpenAI Realtime WebSocket through the SDK (OpenAIRealtimeWS) under the outbound address policy:
 * an IP-literal host is checked here, a name by the guarded lookup the socket resolves with, so the socket
 * connects to exactly the address that was checked. An HTTP answer to the handshake (a refused key) is read
 * into an error shaped like the SDK's (status and the provider's message).
 */
import type { ClientRequest } from 'node:http';
import net from 'node:net';
import type OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { ClientOptions } from 'ws';
import { ApiError } from '../kernel/errors.js';
import { checkLiteralHost, guardedLookup } from '../security/guarded-connector.js';

export interface RealtimeSocketOptions {
  allowPrivateNetwork: boolean;
  handshakeTimeoutMs: number;
  /** The handshake was answered with an HTTP error instead of an upgrade. */
  onHttpError(err: Error & { status: number }): void;
  /**
   * `transcription`: a transcription session (speech to text only), which the API opens for ?intent=transcription
   * with no model in the URL. The SDK always puts the model there, so the request's path is rewritten before it goes.
   */
  intent?: 'transcription';
}

/** Throws (an ApiError or the guard's OutboundError) when the base URL cannot be used at all. */
export function openRealtimeSocket(client: OpenAI, baseUrl: string, model: string, opts: RealtimeSocketOptions): OpenAIRealtimeWS {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ApiError('invalid', 422, `baseUrl: ${baseUrl} is not a valid URL`);
  }
  // net skips the lookup hook for IP literals, so those are checked here.
  checkLiteralHost(url, opts);
  const options: ClientOptions & { lookup: ReturnType<typeof guardedLookup> } = {
    lookup: guardedLookup({ allowPrivateNetwork: opts.allowPrivateNetwork }),
    handshakeTimeout: opts.handshakeTimeoutMs,
    // Base64 audio barely compresses; deflate would cost CPU and a zlib context per session.
    perMessageDeflate: false,
    // The SDK always asks for wss:; a plain-http base URL (a local gateway, a test fake) gets a plain socket.
    ...(url.protocol === 'http:' ? { createConnection: plainConnection } : {}),
    ...(opts.intent ? { finishRequest: withIntent(opts.intent) } : {}),
  };
  const rt = new OpenAIRealtimeWS({ model, options }, client);
  rt.socket.on('unexpected-response', (req, res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => { if (body.length < 4096) body += c; });
    res.on('end', () => opts.onHttpError(Object.assign(new Error(body || res.statusMessage || ''), { status: res.statusCode ?? 0, error: errorBody(body) })));
    res.on('error', () => req.destroy());
  });
  return rt;
}

/** ws's last step before the handshake request is sent: its path gets the intent in place of the model. */
const withIntent = (intent: string) => (req: ClientRequest): void => {
  const path = new URL(req.path, 'http://path');
  path.searchParams.delete('model');
  path.searchParams.set('intent', intent);
  req.path = path.pathname + path.search;
  req.end();
};

/** ws's own plain connector, for a wss: URL that must go over plain TCP (`path` is the request's, not a pipe's). */
const plainConnection = ((o: net.NetConnectOpts) => net.connect({ ...o, path: undefined } as net.NetConnectOpts)) as typeof net.createConnection;

/** The { error: { message } } JSON an HTTP error carries, when it does. */
function errorBody(text: string): { message: string } | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof parsed?.error?.message === 'string' ? { message: parsed.error.message } : undefined;
  } catch {
    return undefined;
  }
}
