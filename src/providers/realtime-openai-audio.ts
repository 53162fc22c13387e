/**
 * The audio events of the OpenAI Realtime socket, the bulk of its traffic (50 a second each way per session),
 * written and read with as little work and garbage as the wire format allows (bench/voice.ts measures it):
 * - input_audio_buffer.append is written as one WebSocket frame in one buffer, its base64 encoded straight into it
 *   (no string), and handed to the TCP socket in one write (ws would cork, write its header and the payload apart
 *   and allocate its options and frame list each time), masked in place with a fresh random key (ws-mask.ts);
 * - response.output_audio.delta is read straight from the frame (no full-text decode, no JSON.parse of 1.3 KB of
 *   base64) and its base64 decoded from those bytes after one spare byte, so the widget's frame header is written
 *   in front of it without a copy (the `audio` event's `headroom`). Any delta this reader does not expect is left
 *   to the SDK.
 */
import type WebSocket from 'ws';
import { base64Length, decodeBase64Into, decodedLength, encodeBase64Into } from './base64-bytes.js';
import { takeTextFramesAhead } from './voice-ws-frames.js';
import { idleSenderSocket } from './ws-internals.js';
import { maskFrame } from './ws-mask.js';

const APPEND_HEAD = Buffer.from('{"type":"input_audio_buffer.append","audio":"', 'latin1');
const APPEND_TAIL = Buffer.from('"}', 'latin1');

/** The input_audio_buffer.append event for this PCM, as the bytes of a text frame's payload. */
export function appendEvent(pcm: Uint8Array): Buffer {
  return appendPayload(pcm, 0);
}

/** The event for pcm[from, end) written after `head` spare bytes (for a frame header). */
function appendPayload(pcm: Uint8Array, head: number, reuse?: Buffer, from = 0): Buffer {
  const size = head + APPEND_HEAD.length + base64Length(pcm.length - from) + APPEND_TAIL.length;
  const out = reuse?.length === size ? reuse : Buffer.allocUnsafe(size);
  APPEND_HEAD.copy(out, head);
  const end = encodeBase64Into(pcm, out, head + APPEND_HEAD.length, from);
  APPEND_TAIL.copy(out, end);
  return out;
}

/**
 * The append event as a whole client WebSocket frame: FIN + text, the payload length, the mask bit and a fresh
 * random key, then the event masked with it: what ws writes for it, with another key.
 */
export function appendFrame(pcm: Uint8Array, reuse?: Buffer, from = 0): Buffer {
  const payload = APPEND_HEAD.length + base64Length(pcm.length - from) + APPEND_TAIL.length;
  const lenBytes = payload < 126 ? 0 : payload < 65536 ? 2 : 8;
  const head = 2 + lenBytes + 4;
  const out = appendPayload(pcm, head, reuse, from);
  out[0] = 0x81;
  if (lenBytes === 0) out[1] = 0x80 | payload;
  else if (lenBytes === 2) { out[1] = 0x80 | 126; out.writeUInt16BE(payload, 2); } else { out[1] = 0x80 | 127; out.writeUInt32BE(0, 2); out.writeUInt32BE(payload, 6); }
  maskFrame(out, head - 4, head, out.length);
  return out;
}

/**
 * Each engine socket's last append frame, when the socket took all of it at once (its bytes are in the kernel, no
 * reference to the buffer is left): the next 20 ms frame, the same size, is written into it. A new buffer a frame
 * was a backing store that V8 counts as external memory until the young generation is swept, and that count
 * brings the next full GC forward (docs/performance.md, Voice relay, session 3).
 */
const spareFrames = new WeakMap<object, Buffer>();

/**
 * Sends the append for this PCM on an open engine socket: straight to its TCP socket as one frame when ws's sender
 * is idle (no deflate on this socket, no blob being read: nothing of ws's can be queued ahead of it), else by ws.
 * `from`: the PCM is pcm[from, end) (a widget frame after its header byte, without a view made of it).
 */
export function sendAppend(socket: WebSocket, pcm: Uint8Array, from = 0): void {
  const raw = idleSenderSocket(socket);
  if (raw) {
    // A frame is reused only while the socket holds nothing: a write it could not finish at once keeps its buffer.
    const spare = raw.writableLength === 0 ? spareFrames.get(raw) : undefined;
    const frame = appendFrame(pcm, spare, from);
    raw.write(frame);
    if (raw.writableLength === 0) spareFrames.set(raw, frame); else spareFrames.delete(raw);
  } else socket.send(appendEvent(from ? pcm.subarray(from) : pcm), { binary: false });
}

/** Base64 audio decoded after one spare byte: the PCM is a view, the byte before it free for a header. */
export function decodeWithHeadroom(b64: string): Buffer {
  const buf = Buffer.allocUnsafe(1 + ((b64.length * 3) >> 2));
  return buf.subarray(1, 1 + buf.write(b64, 1, 'base64'));
}

/** The base64 text data[start, end) decoded after one spare byte, as decodeWithHeadroom, without a string. */
export function decodeBytesWithHeadroom(data: Buffer, start: number, end: number): Buffer {
  return decodeStrictWithHeadroom(data, start, end) ?? decodeWithHeadroom(data.toString('latin1', start, end));
}

/** As decodeBytesWithHeadroom when data[start, end) is plain standard base64; null otherwise. */
function decodeStrictWithHeadroom(data: Buffer, start: number, end: number): Buffer | null {
  const len = decodedLength(data, start, end);
  if (len < 0) return null;
  const buf = Buffer.allocUnsafe(1 + len);
  return decodeBase64Into(data, start, end, buf, 1) === len ? buf.subarray(1) : null;
}

const TYPE = Buffer.from('"type":"response.output_audio.delta"', 'latin1');
const ITEM_ID = Buffer.from('"item_id":"', 'latin1');
const DELTA = Buffer.from('"delta":"', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE = 0x7d;

/**
 * Where a JSON string value that starts at `from` and has no escapes ends (its closing quote, before `limit`), or
 * -1. The scan stops at the quote: the buffer may hold more frames after this one.
 */
function plainStringEnd(data: Buffer, from: number, limit: number): number {
  const end = data.indexOf(QUOTE, from);
  if (end < 0 || end >= limit) return -1;
  for (let i = from; i < end; i++) if (data[i] === BACKSLASH) return -1;
  return end;
}

/** Where an audio delta's base64 lies in its frame, and its item id. */
export interface AudioDeltaAt { itemId: string; start: number; end: number }

/** Whether data[start, end) holds exactly the characters of `known` (so its string can be reused). */
function sameText(data: Buffer, start: number, end: number, known: string): boolean {
  if (end - start !== known.length) return false;
  for (let i = 0; i < known.length; i++) if (data[start + i] !== known.charCodeAt(i)) return false;
  return true;
}

/**
 * Reads a response.output_audio.delta frame without parsing its JSON: its type among the first keys, its item id
 * and delta as strings without escapes, the event ending after its delta (as OpenAI writes it). Null for any other
 * event, or a delta written another way (the SDK then reads it). Inside a JSON string a quote is escaped, so these
 * byte sequences can only be the event's own keys. `knownId`: the item id of the last delta, returned as the same
 * string when it has not changed (every delta of an item repeats it).
 */
export function readAudioDelta(data: Buffer, knownId = '', start = 0, end = data.length, out?: AudioDeltaAt): AudioDeltaAt | null {
  const at = data.indexOf(TYPE, start);
  if (at < 0 || at - start > 128) return null;
  const i = data.indexOf(ITEM_ID, at);
  const d = data.indexOf(DELTA, at);
  if (i < 0 || d < 0 || i >= end || d >= end) return null;
  const idStart = i + ITEM_ID.length;
  const idEnd = plainStringEnd(data, idStart, end);
  const deltaEnd = plainStringEnd(data, d + DELTA.length, end);
  if (idEnd < 0 || deltaEnd < 0 || data.indexOf(CLOSE, deltaEnd) !== end - 1) return null;
  const itemId = sameText(data, idStart, idEnd, knownId) ? knownId : data.toString('latin1', idStart, idEnd);
  if (!out) return { itemId, start: d + DELTA.length, end: deltaEnd };
  out.itemId = itemId; out.start = d + DELTA.length; out.end = deltaEnd;
  return out;
}

/**
 * One engine socket's memory for the deltas it decodes (the PCM after one spare byte), reused delta after delta:
 * a new buffer each was a Buffer object, a view and, every few deltas, a new pooled slab (an ArrayBuffer V8 sweeps
 * at each scavenge). The widget socket copies the frame when it sends it; whoever keeps a chunk copies it
 * (the `transient` audio event, src/providers/voice-engine.ts). The view is reused while the length is the same.
 */
export class DeltaScratch {
  private buf = Buffer.allocUnsafeSlow(2048);
  private view = this.buf.subarray(1, 1);

  /** data[start, end) decoded as decodeStrictWithHeadroom does, into this memory; null when not plain base64. */
  decode(data: Buffer, start: number, end: number): Buffer | null {
    const len = decodedLength(data, start, end);
    if (len < 0) return null;
    if (len + 1 > this.buf.length) {
      this.buf = Buffer.allocUnsafeSlow(Math.max(len + 1, this.buf.length * 2));
      this.view = this.buf.subarray(1, 1);
    }
    if (decodeBase64Into(data, start, end, this.buf, 1) !== len) return null;
    if (this.view.length !== len) this.view = this.buf.subarray(1, 1 + len);
    return this.view;
  }
}

/** Whether data[from, to) is all ASCII (so valid UTF-8, as ws would check of a text frame). */
function ascii(data: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (data[i] > 0x7f) return false;
  return true;
}

/**
 * Puts `onDelta` in front of the socket's message listeners (the SDK's): audio deltas it takes (their PCM decoded
 * with headroom) go no further; every other frame reaches the SDK as before, in order.
 */
/**
 * Audio deltas read in front of ws (whole in one TCP read) and through it since the process started, and whether
 * reading ahead is on (bench/voice.ts measures with it off for a baseline; on in the server).
 */
export const audioDeltaReads = { ahead: 0, ws: 0, aheadOn: true };

/** `transient`: the PCM is the socket's DeltaScratch, valid only until onDelta returns. */
export function takeAudioDeltas(socket: WebSocket, wants: () => boolean, onDelta: (itemId: string, pcm: Buffer, transient: boolean) => void): void {
  const others = socket.listeners('message') as Array<(data: Buffer, isBinary: boolean) => void>;
  socket.removeAllListeners('message');
  let lastId = '';
  const scratch = new DeltaScratch();
  const at: AudioDeltaAt = { itemId: '', start: 0, end: 0 };
  // Most deltas arrive whole in one TCP read: taken there, before ws parses them (src/providers/voice-ws-frames.ts).
  // A delta taken there is wholly ASCII (the base64 checked by the strict decoder), as ws's UTF-8 check would pass.
  takeTextFramesAhead(socket, (data, start, end) => {
    if (!audioDeltaReads.aheadOn || !wants()) return false;
    const audio = readAudioDelta(data, lastId, start, end, at);
    if (!audio || !ascii(data, start, audio.start) || !ascii(data, audio.end, end)) return false;
    const pcm = scratch.decode(data, audio.start, audio.end);
    if (!pcm) return false;
    lastId = audio.itemId;
    audioDeltaReads.ahead++;
    onDelta(audio.itemId, pcm, true);
    return true;
  });
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    const audio = isBinary || !wants() ? null : readAudioDelta(data, lastId);
    if (audio) {
      lastId = audio.itemId;
      audioDeltaReads.ws++;
      onDelta(audio.itemId, decodeBytesWithHeadroom(data, audio.start, audio.end), false);
      return;
    }
    for (const l of others) l.call(socket, data, isBinary);
  });
}
