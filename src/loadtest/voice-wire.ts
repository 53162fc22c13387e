/**
 * The voice audio format the capacity test and the voice bench share: PCM16 mono 24 kHz (OpenAI Realtime, both
 * ways) in 20 ms frames, a quiet tone for "speech", and the input_audio_buffer.append event as the server's engine
 * writes it (src/providers/realtime-openai-audio.ts appendEvent), so a simulated engine can read it cheaply.
 */
import { performance } from 'node:perf_hooks';

export const RATE = 24_000;
export const FRAME_MS = 20;
/** PCM bytes of one 20 ms frame. */
export const FRAME_BYTES = (RATE * FRAME_MS) / 1000 * 2;
/** PCM bytes per millisecond of audio. */
export const BYTES_PER_MS = FRAME_BYTES / FRAME_MS;

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export const wallNow = () => performance.timeOrigin + performance.now();

/**
 * A 20 ms frame of a 220 Hz tone after `head` bytes (0: bare PCM; 1: room for the widget's 0x01 byte). A frame
 * holds a whole number of the tone's periods' worth of phase restart, so the same frame can be sent again and again.
 */
export function toneFrame(head = 0, amplitude = 800): Buffer {
  const b = Buffer.alloc(head + FRAME_BYTES);
  for (let i = 0; i < FRAME_BYTES / 2; i++) b.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * 220 * i) / RATE)), head + i * 2);
  return b;
}

export const APPEND_PREFIX = '{"type":"input_audio_buffer.append","audio":"';
const appendPrefix = Buffer.from(APPEND_PREFIX, 'latin1');

/** The first `bytes` PCM bytes of an input_audio_buffer.append event (as ws gives it), or null if it is not one. */
export function appendHead(data: Buffer, bytes: number): Buffer | null {
  const n = appendPrefix.length;
  const chars = Math.ceil(bytes / 3) * 4;
  if (data.length < n + 4 || data.compare(appendPrefix, 0, n, 0, n) !== 0) return null;
  return Buffer.from(data.toString('latin1', n, Math.min(data.length, n + chars)).replace(/".*$/, ''), 'base64');
}

/** The send time carried by an input_audio_buffer.append event whose PCM starts with a Float64 stamp, or NaN. */
export function appendStamp(data: Buffer): number {
  const head = appendHead(data, 9);
  return head && head.length >= 8 ? head.readDoubleLE(0) : NaN;
}

/** Mean absolute sample value of PCM16 LE (speech detection by energy). */
export function meanLevel(pcm: Buffer): number {
  let sum = 0;
  const n = pcm.length >> 1;
  for (let i = 0; i < n; i++) sum += Math.abs(pcm.readInt16LE(i * 2));
  return n ? sum / n : 0;
}

/** p50/p95/p99/max of a sample (ms). */
export interface Spread { n: number; p50: number; p95: number; p99: number; max: number }

export function spread(xs: ArrayLike<number>): Spread {
  const s = Float64Array.from(xs).sort();
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}
