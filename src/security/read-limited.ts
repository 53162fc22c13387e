/** Reads a response body up to a byte limit, then stops reading (the connection is dropped, not drained). */
import type { Readable } from 'node:stream';

export async function readLimited(body: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      dropBody(body);
      return { body: Buffer.concat(chunks, maxBytes), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks, size), truncated: false };
}

/** Stops reading and closes the connection; undici reports that as an 'error' nobody needs to see. */
export function dropBody(body: Readable): void {
  body.on('error', () => undefined).destroy();
}
