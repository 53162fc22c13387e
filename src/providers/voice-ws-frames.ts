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

/**
 * Where a whole FIN text frame with no RSV bits and no mask, starting at `at`, ends in `data` (its payload then
 * starts 2 or 4 bytes after `at`); -1 for anything else, or when its end is not in this read.
 */
export function wholeTextFrameEnd(data: Buffer, at: number, maxPayload: number): number {
  if (data.length - at < 2 || data[at] !== 0x81) return -1;
  const b = data[at + 1];
  if (b & 0x80) return -1;
  let len = b;
  let head = 2;
  if (b === 126) {
    if (data.length - at < 4) return -1;
    len = (data[at + 2] << 8) | data[at + 3];
    head = 4;
  } else if (b === 127) return -1;
  if (maxPayload > 0 && len > maxPayload) return -1;
  const end = at + head + len;
  return end <= data.length ? end : -1;
}

/**
 * Puts `take` in front of ws's reading of `socket` once it is open. Anything unexpected about ws's state (another
 * data listener, no receiver) leaves ws reading everything, as before.
 */
export function takeTextFramesAhead(socket: WebSocket, take: TakeFrame): void {
  socket.once('open', () => {
    const { _socket: tcp, _receiver: receiver } = socket as unknown as WsInternals;
    const listeners = tcp?.listeners('data');
    if (!tcp || !receiver || listeners?.length !== 1) return;
    const wsData = listeners[0] as (this: unknown, chunk: Buffer) => void;
    const ahead = function (this: unknown, chunk: Buffer): void {
      // ws stops reading when its receiver fails (it removes its own listener, which is no longer there).
      if (receiver._errored) return;
      let at = 0;
      if (socket.readyState === 1 && idle(receiver)) {
        for (let end = wholeTextFrameEnd(chunk, 0, receiver._maxPayload); end > 0; end = wholeTextFrameEnd(chunk, at, receiver._maxPayload)) {
          if (!take(chunk, at + (chunk[at + 1] === 126 ? 4 : 2), end)) break;
          at = end;
        }
        if (at === chunk.length) return;
      }
      wsData.call(this, at === 0 ? chunk : chunk.subarray(at));
    };
    tcp.removeListener('data', wsData);
    tcp.on('data', ahead);
    // ws stops reading at close (it removes its own listener); so does this.
    socket.once('close', () => tcp.removeListener('data', ahead));
  });
}
