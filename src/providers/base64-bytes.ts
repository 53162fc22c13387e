/**
 * Base64 from bytes to bytes, for the voice relay's audio (50 frames a second each way per session): Node 20 only
 * encodes to a string and decodes from one, and that string (1.3 KB a frame) was the largest garbage per relayed
 * frame (docs/performance.md, Voice relay). These write straight into the caller's buffer instead.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENC = new Uint8Array(64);
/** Byte -> six bits, or -1 for anything but the standard alphabet. */
const DEC = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) { ENC[i] = ALPHABET.charCodeAt(i); DEC[ALPHABET.charCodeAt(i)] = i; }
const PAD = 0x3d;

/** Length of the padded base64 of `bytes` bytes. */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

/**
 * Writes the padded standard base64 of src[from, src.length) into `out` from `at` (base64Length of that many
 * bytes); returns the end.
 */
export function encodeBase64Into(src: Uint8Array, out: Uint8Array, at: number, from = 0): number {
  const n = src.length;
  const full = n - ((n - from) % 3);
  let o = at;
  let i = from;
  for (; i < full; i += 3) {
    const v = (src[i] << 16) | (src[i + 1] << 8) | src[i + 2];
    out[o] = ENC[v >> 18]; out[o + 1] = ENC[(v >> 12) & 63]; out[o + 2] = ENC[(v >> 6) & 63]; out[o + 3] = ENC[v & 63];
    o += 4;
  }
  if (n - full === 1) {
    const v = src[i] << 16;
    out[o] = ENC[v >> 18]; out[o + 1] = ENC[(v >> 12) & 63]; out[o + 2] = PAD; out[o + 3] = PAD;
    o += 4;
  } else if (n - full === 2) {
    const v = (src[i] << 16) | (src[i + 1] << 8);
    out[o] = ENC[v >> 18]; out[o + 1] = ENC[(v >> 12) & 63]; out[o + 2] = ENC[(v >> 6) & 63]; out[o + 3] = PAD;
    o += 4;
  }
  return o;
}

/** Bytes the base64 text src[start, end) decodes to, if it is plain padded-or-not standard base64; -1 otherwise. */
export function decodedLength(src: Uint8Array, start: number, end: number): number {
  let e = end;
  if (e > start && src[e - 1] === PAD) e--;
  if (e > start && src[e - 1] === PAD) e--;
  const n = e - start;
  if (n % 4 === 1) return -1;
  return ((n >> 2) * 3) + (n % 4 === 0 ? 0 : (n % 4) - 1);
}

/**
 * Decodes the base64 text src[start, end) into `out` from `at`. Returns the bytes written, or -1 (out untouched
 * past `at` only partly) when the text is anything but the standard alphabet with optional padding at the end:
 * the caller then decodes it Node's way (which also takes base64url, whitespace and junk), so results never differ.
 */
export function decodeBase64Into(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  const len = decodedLength(src, start, end);
  if (len < 0) return -1;
  const groups = Math.floor(len / 3);
  let s = start;
  let o = at;
  for (let g = 0; g < groups; g++) {
    const a = DEC[src[s]], b = DEC[src[s + 1]], c = DEC[src[s + 2]], d = DEC[src[s + 3]];
    if ((a | b | c | d) < 0) return -1;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o] = v >> 16; out[o + 1] = (v >> 8) & 255; out[o + 2] = v & 255;
    s += 4;
    o += 3;
  }
  const rest = len - groups * 3;
  if (rest > 0) {
    const a = DEC[src[s]], b = DEC[src[s + 1]], c = rest === 2 ? DEC[src[s + 2]] : 0;
    if ((a | b | c) < 0) return -1;
    const v = (a << 18) | (b << 12) | (c << 6);
    out[o] = v >> 16;
    if (rest === 2) out[o + 1] = (v >> 8) & 255;
  }
  return len;
}
