/**
 * Whole text frames read off a ws client's TCP stream in front of ws's receiver, for the engine's audio events
 * (50 a second per session): ws's receiver makes several Buffer views, a fragment list and a stream write per frame,
 * the largest garbage left per relayed frame (docs/performance.md, Voice relay). Here a whole unfragmented,
 * unmasked text frame, read while nothing of ws's is pending, is offered to `take` as a byte range of the read's own
 * buffer (no object at all); whatever `take` declines, and anything else, goes to ws in order, so ws sees every
 * other byte as it came and checks it as before. `take` must itself check what ws would (a frame it takes must be
 * valid UTF-8 text).
 */
import type WebSocket from 'ws';
import { readIntoBuffer, receiverIdle, wsTransport } from './ws-internals.js';

/** The frame's payload is data[start, end); true when handled (ws never sees it). */
export type TakeFrame = (data: Buffer, start: number, end: number) => boolean;

/** Bytes of the header of an unmasked frame at `at` in data[0, len) (2 or 4), or -1 (masked, 64-bit length, or not all here). */
function frameHead(data: Buffer, at: number, len: number): number {
  if (len - at < 2 || data[at + 1] & 0x80) return -1;
  const b = data[at + 1];
  if (b < 126) return 2;
  return b === 126 && len - at >= 4 ? 4 : -1;
}

/** The whole length (header and payload) of the frame whose header of `head` bytes is at `at`. */
const frameLength = (data: Buffer, at: number, head: number) => head + (head === 2 ? data[at + 1] : (data[at + 2] << 8) | data[at + 3]);

/** A FIN text frame with no RSV bits (what `take` is offered). */
const isText = (data: Buffer, at: number) => data[at] === 0x81;

/**
 * Where the whole unmasked frame starting at `at` ends in data[0, len); -1 when it is masked, has a 64-bit length
 * or is over `maxPayload` (ws's checks then apply), or its end is not in this read.
 */
export function wholeFrameEnd(data: Buffer, at: number, maxPayload: number, len = data.length): number {
  const head = frameHead(data, at, len);
  if (head < 0) return -1;
  const length = frameLength(data, at, head);
  if (maxPayload > 0 && length - head > maxPayload) return -1;
  return at + length <= len ? at + length : -1;
}

/** Frames longer than this that arrive in pieces are left to ws (audio deltas are about 1.4 KB). */
const HOLD_MAX = 65_536;

/**
 * The memory every engine socket reads into (Node's `onread` buffer), in place of a new Buffer and ArrayBuffer
 * per read with the stream's objects around it: a read is handled whole before the next one (of any socket)
 * starts, and what outlives it (bytes for ws, a frame's start) is copied first.
 */
const SHARED_READ = Buffer.allocUnsafeSlow(65_536);

/** Reads after which a socket that could not switch to SHARED_READ stops trying (it keeps Node's reads). */
const SWITCH_TRIES = 8;

/** The readers in front of each socket's ws (the last installed reads first). */
const takersOf = new WeakMap<object, TakeFrame[]>();

/**
 * Puts `take` in front of ws's reading of `socket` once it is open. Anything unexpected about ws's state (another
 * data listener, no receiver) leaves ws reading everything, as before. Whole frames `take` declines (and other
 * kinds: pings, binary) go to ws one at a time, so ws is back between frames after each and the frames after it
 * are still read here. A frame that begins in one read and ends in a later one (a busy server reads many frames at
 * once) is held here until its end comes: ws holding a partial frame would take every read after it until one
 * happened to end on a frame boundary. The socket (TCP, or TLS: Node's TLSWrap takes a user buffer too) reads into
 * SHARED_READ when it can (readIntoBuffer, ws-internals.ts), else through its 'data' event.
 */
export function takeTextFramesAhead(socket: WebSocket, take: TakeFrame): void {
  socket.once('open', () => {
    const transport = wsTransport(socket);
    if (!transport) return;
    const { tcp, receiver } = transport;
    const known = takersOf.get(tcp);
    if (known) { known.unshift(take); return; }
    const listeners = tcp.listeners('data');
    if (listeners.length !== 1) return;
    const wsData = listeners[0] as (this: unknown, chunk: Buffer) => void;
    const takers = [take];
    takersOf.set(tcp, takers);
    /** A frame whose end has not come yet: its bytes so far (a copy), how many, and the frame's whole length. */
    let held: Buffer | null = null;
    let heldBytes = 0;
    let heldLength = 0;
    /** Whether the socket reads into SHARED_READ now. */
    let shared = false;
    let closed = false;
    const ready = () => socket.readyState === 1 && receiverIdle(receiver);
    /** data[at, end) to ws; copied when it is the shared read memory (ws may keep what it is given). */
    const toWs = (data: Buffer, at: number, end: number, own: boolean) => {
      if (own || !shared) { wsData.call(tcp, at === 0 && end === data.length ? data : data.subarray(at, end)); return; }
      const copy = Buffer.allocUnsafe(end - at);
      data.copy(copy, 0, at, end);
      wsData.call(tcp, copy);
    };
    /** One whole frame data[at, end): offered to the readers if it is text, else (or if declined) given to ws. */
    const one = (data: Buffer, at: number, end: number, own: boolean) => {
      if (isText(data, at)) {
        const start = at + (data[at + 1] === 126 ? 4 : 2);
        for (let i = 0; i < takers.length; i++) if (takers[i](data, start, end)) return;
      }
      toWs(data, at, end, own);
    };
    const ahead = (chunk: Buffer, len: number): void => {
      // ws stops reading when its receiver fails (it removes its own listener, which is no longer there).
      if (closed || receiver._errored) return;
      let at = 0;
      if (held) {
        const need = heldLength - heldBytes;
        const n = Math.min(need, len);
        chunk.copy(held, heldBytes, 0, n);
        heldBytes += n;
        if (n < need) return;
        const frame = held;
        held = null;
        at = n;
        if (ready()) one(frame, 0, heldLength, true); else toWs(frame, 0, heldLength, true);
      }
      while (at < len && ready()) {
        const end = wholeFrameEnd(chunk, at, receiver._maxPayload, len);
        if (end < 0) break;
        one(chunk, at, end, false);
        at = end;
      }
      if (at === len) return;
      if (ready()) {
        const head = frameHead(chunk, at, len);
        const length = head > 0 ? frameLength(chunk, at, head) : 0;
        if (head > 0 && length <= HOLD_MAX && (receiver._maxPayload <= 0 || length - head <= receiver._maxPayload)) {
          held = Buffer.allocUnsafe(length);
          heldBytes = chunk.copy(held, 0, at, len);
          heldLength = length;
          return;
        }
      }
      toWs(chunk, at, len, false);
    };
    tcp.removeListener('data', wsData);
    // ws put the bytes that came with the upgrade back in the stream: they are read as 'data' first, then reads go
    // to the shared memory once the stream holds nothing.
    let tries = 0;
    const onData = (chunk: Buffer) => {
      ahead(chunk, chunk.length);
      if (closed || tries++ >= SWITCH_TRIES) return;
      if (readIntoBuffer(tcp, SHARED_READ, (bytes, buf) => ahead(buf, bytes))) { shared = true; tcp.removeListener('data', onData); }
    };
    tcp.on('data', onData);
    // ws stops reading at close (it removes its own listener); so does this.
    socket.once('close', () => { closed = true; });
  });
}
