/**
 * The audio events of the OpenAI Realtime socket, the bulk of its traffic (50 a second each way per session),
 * written and read with as little work and garbage as the wire format allows (bench/voice.ts measures it):
 * - input_audio_buffer.append is written as one WebSocket frame in one buffer, its base64 encoded straight into it
 *   (no string), and handed to the TCP socket in one write (ws would cork, write its header and the payload apart
 *   and allocate its options and frame list each time); the bytes are those ws writes with the engine's zero mask;
 * - response.output_audio.delta is read straight from the frame (no full-text decode, no JSON.parse of 1.3 KB of
 *   base64) and its base64 decoded from those bytes after one spare byte, so the widget's frame header is written
 *   in front of it without a copy (the `audio` event's `headroom`). Any delta this reader does not expect is left
 *   to the SDK.
 */
import type WebSocket from 'ws';
import { base64Length, decodeBase64Into, decodedLength, encodeBase64Into } from './base64-bytes.js';

const APPEND_HEAD = Buffer.from('{"type":"input_audio_buffer.append","audio":"', 'latin1');
const APPEND_TAIL = Buffer.from('"}', 'latin1');

/** The input_audio_buffer.append event for this PCM, as the bytes of a text frame's payload. */
export function appendEvent(pcm: Uint8Array): Buffer {
  return appendPayload(pcm, 0);
}

/** The event written after `head` spare bytes (for a frame header). */
function appendPayload(pcm: Uint8Array, head: number): Buffer {
  const out = Buffer.allocUnsafe(head + APPEND_HEAD.length + base64Length(pcm.length) + APPEND_TAIL.length);
  APPEND_HEAD.copy(out, head);
  const end = encodeBase64Into(pcm, out, head + APPEND_HEAD.length);
  APPEND_TAIL.copy(out, end);
  return out;
}

/**
 * The append event as a whole client WebSocket frame: FIN + text, the payload length, the mask bit with the zero
 * key (src/providers/realtime-openai-socket.ts), then the event, exactly what ws writes for it.
 */
export function appendFrame(pcm: Uint8Array): Buffer {
  const payload = APPEND_HEAD.length + base64Length(pcm.length) + APPEND_TAIL.length;
  const lenBytes = payload < 126 ? 0 : payload < 65536 ? 2 : 8;
  const head = 2 + lenBytes + 4;
  const out = appendPayload(pcm, head);
  out[0] = 0x81;
  if (lenBytes === 0) out[1] = 0x80 | payload;
  else if (lenBytes === 2) { out[1] = 0x80 | 126; out.writeUInt16BE(payload, 2); } else { out[1] = 0x80 | 127; out.writeUInt32BE(0, 2); out.writeUInt32BE(payload, 6); }
  out.writeUInt32BE(0, head - 4);
  return out;
}

/** ws's own state we write beside: its TCP socket and its sender (idle when nothing waits in its queue). */
interface WsInternals { _socket?: { write(b: Buffer): boolean; writable?: boolean }; _sender?: { _state?: number; _queue?: unknown[] } }

/**
 * Sends the append for this PCM on an open engine socket: straight to its TCP socket as one frame when ws's sender
 * is idle (no deflate on this socket, no blob being read: nothing of ws's can be queued ahead of it), else by ws.
 */
export function sendAppend(socket: WebSocket, pcm: Uint8Array): void {
  const ws = socket as unknown as WsInternals;
  const raw = ws._socket;
  if (raw?.writable && ws._sender?._state === 0 && ws._sender._queue?.length === 0) raw.write(appendFrame(pcm));
  else socket.send(appendEvent(pcm), { binary: false });
}

/** Base64 audio decoded after one spare byte: the PCM is a view, the byte before it free for a header. */
export function decodeWithHeadroom(b64: string): Buffer {
  const buf = Buffer.allocUnsafe(1 + ((b64.length * 3) >> 2));
  return buf.subarray(1, 1 + buf.write(b64, 1, 'base64'));
}

/** The base64 text data[start, end) decoded after one spare byte, as decodeWithHeadroom, without a string. */
export function decodeBytesWithHeadroom(data: Buffer, start: number, end: number): Buffer {
  const len = decodedLength(data, start, end);
  if (len >= 0) {
    const buf = Buffer.allocUnsafe(1 + len);
    if (decodeBase64Into(data, start, end, buf, 1) === len) return buf.subarray(1);
  }
  return decodeWithHeadroom(data.toString('latin1', start, end));
}

const TYPE = Buffer.from('"type":"response.output_audio.delta"', 'latin1');
const ITEM_ID = Buffer.from('"item_id":"', 'latin1');
const DELTA = Buffer.from('"delta":"', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE = 0x7d;

/** A JSON string value that starts at `from` and has no escapes, or null. */
function plainString(data: Buffer, from: number): { end: number } | null {
  const end = data.indexOf(QUOTE, from);
  if (end < 0) return null;
  const slash = data.indexOf(BACKSLASH, from);
  return slash >= 0 && slash < end ? null : { end };
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
export function readAudioDelta(data: Buffer, knownId = ''): AudioDeltaAt | null {
  const at = data.indexOf(TYPE);
  if (at < 0 || at > 128) return null;
  const i = data.indexOf(ITEM_ID, at);
  const d = data.indexOf(DELTA, at);
  if (i < 0 || d < 0) return null;
  const item = plainString(data, i + ITEM_ID.length);
  const delta = plainString(data, d + DELTA.length);
  if (!item || !delta || data.indexOf(CLOSE, delta.end) !== data.length - 1) return null;
  const idStart = i + ITEM_ID.length;
  const itemId = sameText(data, idStart, item.end, knownId) ? knownId : data.toString('latin1', idStart, item.end);
  return { itemId, start: d + DELTA.length, end: delta.end };
}

/**
 * Puts `onDelta` in front of the socket's message listeners (the SDK's): audio deltas it takes (their PCM decoded
 * with headroom) go no further; every other frame reaches the SDK as before, in order.
 */
export function takeAudioDeltas(socket: WebSocket, wants: () => boolean, onDelta: (itemId: string, pcm: Buffer) => void): void {
  const others = socket.listeners('message') as Array<(data: Buffer, isBinary: boolean) => void>;
  socket.removeAllListeners('message');
  let lastId = '';
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    const audio = isBinary || !wants() ? null : readAudioDelta(data, lastId);
    if (audio) {
      lastId = audio.itemId;
      onDelta(audio.itemId, decodeBytesWithHeadroom(data, audio.start, audio.end));
      return;
    }
    for (const l of others) l.call(socket, data, isBinary);
  });
}
