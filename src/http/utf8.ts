/**
 * Text handed to uWebSockets.js, as UTF-8 on the wire on every Node version.
 *
 * uWS takes a JS string as well as bytes, but the binary Node 24 loads (uwebsockets@3.0.6) writes a string that V8
 * keeps at one byte per character (Latin-1 text such as "fünf" or "geöffnet") as those raw bytes, not as UTF-8: a
 * REST body then reads "f\xfcnf" and a WebSocket client closes the socket for invalid UTF-8 (the binaries Node 20
 * and 22 load encode it correctly). Every string src/http hands to uWS for a body, a frame or a close reason goes
 * through here. ASCII, the common case, is checked natively and passed as it is; anything else becomes its UTF-8
 * bytes. test/http/utf8.test.ts fails on a binary with the fault if a path bypasses this.
 */
export function utf8<T extends string | Uint8Array>(text: T): T | Buffer {
  if (typeof text !== 'string' || Buffer.byteLength(text) === text.length) return text;
  return Buffer.from(text, 'utf8');
}

/** A WebSocket close reason: at most 123 bytes of UTF-8 (RFC 6455), cut at a character boundary. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let out = '';
  for (const ch of reason) {
    if (Buffer.byteLength(out + ch) > 123) break;
    out += ch;
  }
  return out;
}
