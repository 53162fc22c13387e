/**
 * The one place that reads ws's and Node's private state, for the voice relay's fast paths: appends written beside
 * ws's sender (realtime-openai-audio.ts) and audio frames read in front of ws's receiver into one shared buffer
 * through Node's `onread` (voice-ws-frames.ts). Each accessor answers null or false when the state is not as ws 8
 * and Node 20-24 make it, and the callers then leave everything to ws: slower, still correct.
 * test/providers/realtime-ws-internals.test.ts fails loudly when an upgrade of ws or Node changes what is read here,
 * so a fast path never switches itself off unnoticed.
 */
import type WebSocket from 'ws';

/** ws's frame parser (a Writable), as far as it is read here. */
export interface WsReceiver { _state: number; _bufferedBytes: number; _fragmented: number; _errored: boolean; _maxPayload: number; writableLength: number }
/** ws's TCP (or TLS) socket. */
export type WsTcp = NodeJS.EventEmitter & { write(b: Buffer): boolean; writable?: boolean; writableLength: number };
interface WsSender { _state?: number; _queue?: unknown[] }
interface WsPrivate { _socket?: WsTcp; _receiver?: WsReceiver; _sender?: WsSender }

/** An open ws socket's TCP socket and frame parser; null when ws keeps them otherwise. */
export function wsTransport(socket: WebSocket): { tcp: WsTcp; receiver: WsReceiver } | null {
  const { _socket: tcp, _receiver: receiver } = socket as unknown as WsPrivate;
  return tcp && receiver && typeof receiver._state === 'number' && typeof receiver._maxPayload === 'number' ? { tcp, receiver } : null;
}

/** The receiver between frames with nothing buffered: the next byte it would read starts a frame header. */
export const receiverIdle = (r: WsReceiver): boolean =>
  r._state === 0 && r._bufferedBytes === 0 && r._fragmented === 0 && !r._errored && r.writableLength === 0;

/** ws's TCP socket when its sender has nothing queued or under way (a frame written to it now keeps its order), else null. */
export function idleSenderSocket(socket: WebSocket): WsTcp | null {
  const ws = socket as unknown as WsPrivate;
  const raw = ws._socket;
  return raw?.writable && ws._sender?._state === 0 && ws._sender._queue?.length === 0 ? raw : null;
}

/** Node's own names for a socket's `onread` state (net.Socket, set from its options). */
interface UserRead { kBuffer: symbol; kBufferCb: symbol; kBufferGen: symbol }
function userReadSymbols(tcp: object): UserRead | null {
  const syms = Object.getOwnPropertySymbols(tcp);
  const by = (name: string) => syms.find((x) => x.description === name);
  const [kBuffer, kBufferCb, kBufferGen] = [by('kBuffer'), by('kBufferCb'), by('kBufferGen')];
  return kBuffer && kBufferCb && kBufferGen ? { kBuffer, kBufferCb, kBufferGen } : null;
}
/** Those names, looked up at the first socket (each lookup makes an array); null when Node has none. */
let userRead: UserRead | null | undefined;

/**
 * Has a connected socket read into `buf` from now on, each read handed to `onRead(bytes, buf)` instead of its
 * 'data' event (Node calls it with the bytes read first). False (nothing changed) when the socket is not as Node
 * 20-24 make it: no `onread` state, a handle that cannot read into a given buffer, bytes waiting in its stream, or
 * one set up already.
 */
export function readIntoBuffer(tcp: object, buf: Buffer, onRead: (bytes: number, buf: Buffer) => void): boolean {
  const s = tcp as Record<symbol, unknown> & { _handle?: { useUserBuffer?(b: Uint8Array): void }; readableLength: number };
  if (userRead === undefined) userRead = userReadSymbols(tcp);
  const k = userRead;
  if (!k || typeof s._handle?.useUserBuffer !== 'function' || s.readableLength > 0 || s[k.kBuffer]) return false;
  s[k.kBuffer] = buf;
  s[k.kBufferCb] = onRead;
  s[k.kBufferGen] = null;
  s._handle.useUserBuffer(buf);
  return true;
}

/** What of the above an open, idle client socket lacks (empty when every fast path can run on it): for the test. */
export function missingInternals(socket: WebSocket): string[] {
  const missing: string[] = [];
  const t = wsTransport(socket);
  if (!t) missing.push('ws: _socket or _receiver (_state, _maxPayload)');
  else {
    for (const f of ['_bufferedBytes', '_fragmented', '_errored'] as const) if (!(f in t.receiver)) missing.push(`ws receiver: ${f}`);
    if (!receiverIdle(t.receiver)) missing.push('ws receiver: not idle between frames');
    if (!userReadSymbols(t.tcp)) missing.push('Node net.Socket: kBuffer, kBufferCb, kBufferGen');
    if (typeof (t.tcp as unknown as { _handle?: { useUserBuffer?: unknown } })._handle?.useUserBuffer !== 'function') missing.push('Node socket handle: useUserBuffer');
  }
  if (!idleSenderSocket(socket)) missing.push('ws sender: _state 0 and an empty _queue');
  return missing;
}
