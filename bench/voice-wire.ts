/**
 * What the voice bench's processes share: the audio format (PCM16 mono 24 kHz, 20 ms frames), the send-time stamp
 * every frame carries in its first PCM bytes, and the hand-written input_audio_buffer.append event (the same text
 * the server's engine writes, src/providers/realtime-openai.ts appendAudio, so the fake reads both paths alike).
 */
import { performance } from 'node:perf_hooks';

export const RATE = 24_000;
export const FRAME_MS = 20;
/** PCM bytes of one 20 ms frame. */
export const FRAME_BYTES = (RATE * FRAME_MS) / 1000 * 2;
/** The model the engine asks for (OpenAI's default realtime model). */
export const MODEL = 'gpt-realtime';
export const API_KEY = 'sk-bench';

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export const wallNow = () => performance.timeOrigin + performance.now();

/**
 * A 20 ms frame of a quiet 220 Hz tone after `head` bytes (0: bare PCM; 1: room for the widget's 0x01 byte).
 * The send time goes into the PCM's first 8 bytes (Float64 LE) just before each send, so the frame is reused.
 */
export function toneFrame(head = 0): Buffer {
  const b = Buffer.alloc(head + FRAME_BYTES);
  for (let i = 0; i < FRAME_BYTES / 2; i++) b.writeInt16LE(Math.round(800 * Math.sin((2 * Math.PI * 220 * i) / RATE)), head + i * 2);
  return b;
}

export const APPEND_PREFIX = '{"type":"input_audio_buffer.append","audio":"';
const appendPrefix = Buffer.from(APPEND_PREFIX, 'latin1');

/** The send time carried by an input_audio_buffer.append event (a Buffer as ws gives it), or NaN if it is not one. */
export function appendStamp(data: Buffer): number {
  const n = appendPrefix.length;
  if (data.length < n + 12 || data.compare(appendPrefix, 0, n, 0, n) !== 0) return NaN;
  // 12 base64 characters are the first 9 bytes: the Float64 stamp and one PCM byte.
  return Buffer.from(data.toString('latin1', n, n + 12), 'base64').readDoubleLE(0);
}

/** p50/p95/p99/max of a sample (ms). */
export interface Spread { n: number; p50: number; p95: number; p99: number; max: number }

export function spread(xs: ArrayLike<number>): Spread {
  const s = Float64Array.from(xs).sort();
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}
