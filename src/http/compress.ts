/**
 * Compression of JSON answers: above COMPRESS_MIN_BYTES, brotli (quality 4) or gzip (level 5) when the client
 * accepts it. Small answers are sent as they are: below about one packet, compressing costs more CPU than the
 * bytes it saves. Static files have their own, precompressed copies (static.ts).
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { pickEncoding } from './static.js';

export const COMPRESS_MIN_BYTES = 1024;
const BOTH = { br: true, gz: true };

/** The body to send and its Content-Encoding (null: as it was). Only JSON is compressed here. */
export function compressJson(bytes: Buffer | string, contentType: string | null, acceptEncoding: string | undefined): { bytes: Buffer | string; encoding: 'br' | 'gzip' | null } {
  if (!acceptEncoding || !contentType?.startsWith('application/json')) return { bytes, encoding: null };
  const size = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
  if (size < COMPRESS_MIN_BYTES) return { bytes, encoding: null };
  const encoding = pickEncoding(acceptEncoding, BOTH);
  if (encoding !== 'br' && encoding !== 'gzip') return { bytes, encoding: null };
  if (typeof bytes === 'string') return { bytes: compress(bytes, size, encoding), encoding };
  let forms = compressedOnce.get(bytes);
  if (!forms) compressedOnce.set(bytes, (forms = {}));
  return { bytes: (forms[encoding] ??= compress(bytes, size, encoding)), encoding };
}

/**
 * A JSON answer given as a Buffer is one kept and answered again (the bots list, src/bots/list-cache.ts): it is
 * compressed once per encoding, for as long as the Buffer lives. Such a Buffer must not be changed after.
 */
const compressedOnce = new WeakMap<Buffer, { br?: Buffer; gzip?: Buffer }>();

function compress(bytes: Buffer | string, size: number, encoding: 'br' | 'gzip'): Buffer {
  if (encoding === 'gzip') return gzipSync(bytes, { level: 5 });
  return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: size, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
}
