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

/** The frame's payload is data[start, end); true when handled (ws never sees it). */
export type TakeFrame = (data: Buffer, start: number, end: number) => boolean;

/** ws's own state read here: its TCP socket and its receiver (a Writable that parses frames). */
interface Receiver { _state: number; _bufferedBytes: number; _fragmented: number; _errored: boolean; _maxPayload: number; writableLength: number }
interface WsInternals { _socket?: NodeJS.EventEmitter; _receiver?: Receiver }

/** The receiver between frames with nothing buffered: the next byte it would read starts a frame header. */
const idle = (r: Receiver) => r._state === 0 && r._bufferedBytes === 0 && r._fragmented === 0 && !r._errored && r.writableLength === 0;

/** Bytes of the header of an unmasked frame at `at` (2 or 4), or -1 (masked, 64-bit length, or not all here). */
function frameHead(data: Buffer, at: number): number {
  if (data.length - at < 2 || data[at + 1] & 0x80) return -1;
  const b = data[at + 1];
  if (b < 126) return 2;
  return b === 126 && data.length - at >= 4 ? 4 : -1;
}

/** The whole length (header and payload) of the frame whose header of `head` bytes is at `at`. */
const frameLength = (data: Buffer, at: number, head: number) => head + (head === 2 ? data[at + 1] : (data[at + 2] << 8) | data[at + 3]);

/** A FIN text frame with no RSV bits (what `take` is offered). */
const isText = (data: Buffer, at: number) => data[at] === 0x81;

/**
 * Where the whole unmasked frame starting at `at` ends in `data`; -1 when it is masked, has a 64-bit length or is
 * over `maxPayload` (ws's checks then apply), or its end is not in this read.
 */
export function wholeFrameEnd(data: Buffer, at: number, maxPayload: number): number {
  const head = frameHead(data, at);
  if (head < 0) return -1;
  const len = frameLength(data, at, head);
  if (maxPayload > 0 && len - head > maxPayload) return -1;
  return at + len <= data.length ? at + len : -1;
}

/** Frames longer than this that arrive in pieces are left to ws (audio deltas are about 1.4 KB). */
const HOLD_MAX = 65_536;

/**
 * Puts `take` in front of ws's reading of `socket` once it is open. Anything unexpected about ws's state (another
 * data listener, no receiver) leaves ws reading everything, as before. Whole frames `take` declines (and other
 * kinds: pings, binary) go to ws one at a time, so ws is back between frames after each and the frames after it
 * are still read here. A frame that begins in one read and ends in a later one (a busy server reads many frames at
 * once) is held here until its end comes: ws holding a partial frame would take every read after it until one
 * happened to end on a frame boundary.
 */
export function takeTextFramesAhead(socket: WebSocket, take: TakeFrame): void {
  socket.once('open', () => {
    const { _socket: tcp, _receiver: receiver } = socket as unknown as WsInternals;
    const listeners = tcp?.listeners('data');
    if (!tcp || !receiver || listeners?.length !== 1) return;
    const wsData = listeners[0] as (this: unknown, chunk: Buffer) => void;
    /** The start of a frame whose end has not come yet (a view of its read), and the frame's whole length. */
    let held: Buffer | null = null;
    let heldLength = 0;
    const ready = () => socket.readyState === 1 && idle(receiver);
    /** One whole frame data[at, end): offered to `take` if it is text, else (or if declined) given to ws. */
    const one = (self: unknown, data: Buffer, at: number, end: number) => {
      if (isText(data, at) && take(data, at + (data[at + 1] === 126 ? 4 : 2), end)) return;
      wsData.call(self, at === 0 && end === data.length ? data : data.subarray(at, end));
    };
    const ahead = function (this: unknown, chunk: Buffer): void {
      // ws stops reading when its receiver fails (it removes its own listener, which is no longer there).
      if (receiver._errored) return;
      let at = 0;
      if (held) {
        const need = heldLength - held.length;
        if (chunk.length < need) { held = Buffer.concat([held, chunk]); return; }
        const frame = Buffer.allocUnsafe(heldLength);
        held.copy(frame, 0);
        chunk.copy(frame, held.length, 0, need);
        held = null;
        at = need;
        if (ready()) one(this, frame, 0, frame.length); else wsData.call(this, frame);
      }
      while (at < chunk.length && ready()) {
        const end = wholeFrameEnd(chunk, at, receiver._maxPayload);
        if (end < 0) break;
        one(this, chunk, at, end);
        at = end;
      }
      if (at === chunk.length) return;
      if (ready()) {
        const head = frameHead(chunk, at);
        const length = head > 0 ? frameLength(chunk, at, head) : 0;
        if (head > 0 && length <= HOLD_MAX && (receiver._maxPayload <= 0 || length - head <= receiver._maxPayload)) {
          held = chunk.subarray(at);
          heldLength = length;
          return;
        }
      }
      wsData.call(this, at === 0 ? chunk : chunk.subarray(at));
    };
    tcp.removeListener('data', wsData);
    tcp.on('data', ahead);
    // ws stops reading at close (it removes its own listener); so does this.
    socket.once('close', () => tcp.removeListener('data', ahead));
  });
}
