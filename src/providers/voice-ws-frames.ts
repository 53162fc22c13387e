/**
 * Whole text frames read off a ws client's TCP stream in front of ws's receiver, for the engine's audio events
 * (50 a second per session): ws's receiver makes several Buffer views, a fragment list and a stream write per frame,
 * the largest garbage left per relayed frame (docs/performance.md, Voice relay). Here a frame that arrived whole
 * in one read, unfragmented, unmasked and with nothing of ws's pending, is offered to `take` as a byte range of the
 * read's own buffer (no object at all); what `take` declines, and everything from there to the read's end, goes to
 * ws exactly as it arrived, so ws sees every other byte in order and checks it as before. `take` must itself check
 * what ws would (a frame it takes must be valid UTF-8 text).
 */
import type WebSocket from 'ws';

/** The frame's payload is data[start, end); true when handled (ws never sees it). */
export type TakeFrame = (data: Buffer, start: number, end: number) => boolean;

/** ws's own state read here: its TCP socket and its receiver (a Writable that parses frames). */
interface Receiver { _state: number; _bufferedBytes: number; _fragmented: number; _errored: boolean; _maxPayload: number; writableLength: number }
interface WsInternals { _socket?: NodeJS.EventEmitter; _receiver?: Receiver }

/** The receiver between frames with nothing buffered: the next byte it would read starts a frame header. */
const idle = (r: Receiver) => r._state === 0 && r._bufferedBytes === 0 && r._fragmented === 0 && !r._errored && r.writableLength === 0;

/** Bytes of a FIN text frame's header with no RSV bits and no mask at `at`, or -1 (not one, or not all here). */
function textFrameHead(data: Buffer, at: number): number {
  if (data.length - at < 2 || data[at] !== 0x81 || data[at + 1] & 0x80) return -1;
  const b = data[at + 1];
  if (b < 126) return 2;
  return b === 126 && data.length - at >= 4 ? 4 : -1;
}

/** The whole length (header and payload) of the text frame whose header of `head` bytes is at `at`. */
const frameLength = (data: Buffer, at: number, head: number) => head + (head === 2 ? data[at + 1] : (data[at + 2] << 8) | data[at + 3]);

/**
 * Where a whole FIN text frame with no RSV bits and no mask, starting at `at`, ends in `data` (its payload then
 * starts 2 or 4 bytes after `at`); -1 for anything else, or when its end is not in this read.
 */
export function wholeTextFrameEnd(data: Buffer, at: number, maxPayload: number): number {
  const head = textFrameHead(data, at);
  if (head < 0) return -1;
  const len = frameLength(data, at, head);
  if (maxPayload > 0 && len - head > maxPayload) return -1;
  return at + len <= data.length ? at + len : -1;
}

/** Frames longer than this that arrive in pieces are left to ws (audio deltas are about 1.4 KB). */
const HOLD_MAX = 65_536;

/**
 * Puts `take` in front of ws's reading of `socket` once it is open. Anything unexpected about ws's state (another
 * data listener, no receiver) leaves ws reading everything, as before. A text frame that begins in one read and
 * ends in a later one (a busy server reads many frames at once) is held here, not given to ws in part: ws would
 * then hold a partial frame and take every read after it until one happened to end on a frame boundary.
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
    const offer = (data: Buffer, at: number, end: number) => take(data, at + (data[at + 1] === 126 ? 4 : 2), end);
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
        if (!(socket.readyState === 1 && idle(receiver) && offer(frame, 0, frame.length))) wsData.call(this, frame);
        if (at === chunk.length) return;
      }
      if (socket.readyState === 1 && idle(receiver)) {
        for (let end = wholeTextFrameEnd(chunk, at, receiver._maxPayload); end > 0; end = wholeTextFrameEnd(chunk, at, receiver._maxPayload)) {
          if (!offer(chunk, at, end)) break;
          at = end;
        }
        if (at === chunk.length) return;
        const head = textFrameHead(chunk, at);
        const length = head > 0 ? frameLength(chunk, at, head) : 0;
        if (head > 0 && at + length > chunk.length && length <= HOLD_MAX && (receiver._maxPayload <= 0 || length - head <= receiver._maxPayload)) {
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
