import { randomBytes } from 'node:crypto';

// Crockford base32: sortable as plain strings, no ambiguous letters.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let lastMs = -1;
let lastRandom = new Uint8Array(10);

function encode(bytes: Uint8Array, chars: number): string {
  let bits = 0, value = 0, out = '';
  for (const b of bytes) {
    value = (value << 8) | b; bits += 8;
    while (bits >= 5) { out += ALPHABET[(value >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out.slice(0, chars);
}

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) { out = ALPHABET[ms % 32] + out; ms = Math.floor(ms / 32); }
  return out;
}

/**
 * A new record id: `<prefix>_<time><random>` (ULID layout, monotonic within a millisecond),
 * so ids of one collection sort by creation time and can serve as `before` paging cursors.
 */
export function newId(prefix: string, nowMs = Date.now()): string {
  if (nowMs <= lastMs) {
    // Same (or earlier) millisecond: increment the random part so order is kept.
    for (let i = lastRandom.length - 1; i >= 0; i--) { if (lastRandom[i] < 255) { lastRandom[i]++; break; } lastRandom[i] = 0; }
    nowMs = lastMs;
  } else {
    lastMs = nowMs;
    lastRandom = new Uint8Array(randomBytes(10));
  }
  return `${prefix}_${encodeTime(nowMs)}${encode(lastRandom, 16)}`;
}

/** A secret value for tokens and links: url-safe, `bytes` of entropy. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
