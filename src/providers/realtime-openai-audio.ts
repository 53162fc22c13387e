/**
 * The audio events of the OpenAI Realtime socket, the bulk of its traffic (50 a second each way per session),
 * written and read with as little work as the wire format allows (bench/voice.ts measures it):
 * - input_audio_buffer.append is written once into one buffer: the base64 string is the only intermediate;
 * - response.output_audio.delta is read straight from the frame (no full-text decode, no JSON.parse of 1.3 KB of
 *   base64), and its audio decoded after one spare byte, so the widget's frame header is written in front of it
 *   without a copy (the `audio` event's `headroom`). Any delta this reader does not expect is left to the SDK.
 */
import type WebSocket from 'ws';

const APPEND_HEAD = Buffer.from('{"type":"input_audio_buffer.append","audio":"', 'latin1');
const APPEND_TAIL = Buffer.from('"}', 'latin1');

/** The input_audio_buffer.append event for this PCM, as the bytes of a text frame. */
export function appendEvent(pcm: Buffer): Buffer {
  const b64 = pcm.toString('base64');
  const out = Buffer.allocUnsafe(APPEND_HEAD.length + b64.length + APPEND_TAIL.length);
  APPEND_HEAD.copy(out, 0);
  out.write(b64, APPEND_HEAD.length, 'latin1');
  APPEND_TAIL.copy(out, APPEND_HEAD.length + b64.length);
  return out;
}

/** Base64 audio decoded after one spare byte: the PCM is a view, the byte before it free for a header. */
export function decodeWithHeadroom(b64: string): Buffer {
  const buf = Buffer.allocUnsafe(1 + ((b64.length * 3) >> 2));
  return buf.subarray(1, 1 + buf.write(b64, 1, 'base64'));
}

const TYPE = Buffer.from('"type":"response.output_audio.delta"', 'latin1');
const ITEM_ID = Buffer.from('"item_id":"', 'latin1');
const DELTA = Buffer.from('"delta":"', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A JSON string value that starts at `from` and has no escapes, or null. */
function plainString(data: Buffer, from: number): { end: number } | null {
  const end = data.indexOf(QUOTE, from);
  if (end < 0) return null;
  const slash = data.indexOf(BACKSLASH, from);
  return slash >= 0 && slash < end ? null : { end };
}

/**
 * Reads a response.output_audio.delta frame without parsing its JSON: its type among the first keys, its item id
 * and delta as strings without escapes, the event ending after its delta (as OpenAI writes it). Null for any other
 * event, or a delta written another way (the SDK then reads it). Inside a JSON string a quote is escaped, so these
 * byte sequences can only be the event's own keys.
 */
export function readAudioDelta(data: Buffer): { itemId: string; delta: string } | null {
  const at = data.indexOf(TYPE);
  if (at < 0 || at > 128) return null;
  const i = data.indexOf(ITEM_ID, at);
  const d = data.indexOf(DELTA, at);
  if (i < 0 || d < 0) return null;
  const item = plainString(data, i + ITEM_ID.length);
  const delta = plainString(data, d + DELTA.length);
  if (!item || !delta || data.indexOf('}', delta.end) !== data.length - 1) return null;
  return { itemId: data.toString('latin1', i + ITEM_ID.length, item.end), delta: data.toString('latin1', d + DELTA.length, delta.end) };
}

/**
 * Puts `onDelta` in front of the socket's message listeners (the SDK's): audio deltas it takes go no further;
 * every other frame reaches the SDK as before, in order.
 */
export function takeAudioDeltas(socket: WebSocket, onDelta: (itemId: string, delta: string) => boolean): void {
  const others = socket.listeners('message') as Array<(data: Buffer, isBinary: boolean) => void>;
  socket.removeAllListeners('message');
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    const audio = isBinary ? null : readAudioDelta(data);
    if (audio && onDelta(audio.itemId, audio.delta)) return;
    for (const l of others) l.call(socket, data, isBinary);
  });
}
