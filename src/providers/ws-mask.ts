/**
 * Masking of the client frames written by hand (RFC 6455, 5.3): a fresh, unpredictable 32-bit key for every frame,
 * taken from a pool of random bytes refilled 2,048 keys at a time (as ws does), and the payload XOR-ed in place in
 * the frame's own buffer: no copy, no allocation per frame.
 */
import { randomFillSync } from 'node:crypto';

const POOL = Buffer.allocUnsafeSlow(8192);
let next = POOL.length;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Writes a new key at frame[keyAt, keyAt + 4) and masks frame[start, end) with it. */
export function maskFrame(frame: Buffer, keyAt: number, start: number, end: number): void {
  if (next === POOL.length) { randomFillSync(POOL); next = 0; }
  const k0 = (frame[keyAt] = POOL[next]);
  const k1 = (frame[keyAt + 1] = POOL[next + 1]);
  const k2 = (frame[keyAt + 2] = POOL[next + 2]);
  const k3 = (frame[keyAt + 3] = POOL[next + 3]);
  next += 4;
  let i = start;
  // Four bytes at a time where the payload is 4-byte aligned in its memory (frames from Buffer's pool are).
  const offset = frame.byteOffset + start;
  const words = (end - start) >> 2;
  if ((offset & 3) === 0 && words >= 16) {
    const view = new Uint32Array(frame.buffer, offset, words);
    const key = LITTLE_ENDIAN ? (k0 | (k1 << 8) | (k2 << 16) | (k3 << 24)) >>> 0 : ((k0 << 24) | (k1 << 16) | (k2 << 8) | k3) >>> 0;
    for (let w = 0; w < words; w++) view[w] ^= key;
    i = start + words * 4;
  }
  for (const last = end - 3; i < last; i += 4) {
    frame[i] ^= k0;
    frame[i + 1] ^= k1;
    frame[i + 2] ^= k2;
    frame[i + 3] ^= k3;
  }
  for (let j = 0; i < end; i++, j++) frame[i] ^= j === 0 ? k0 : j === 1 ? k1 : k2;
}
