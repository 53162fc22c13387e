/** Image formats the service accepts, recognised by their magic bytes (never by file name or declared type). */
export type ImageMimeType = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/gif';

const startsWith = (buf: Uint8Array, bytes: readonly number[], at = 0) =>
  buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);

/**
 * The image type named by the first bytes of `buf`, or null when it is none of JPEG, PNG, WebP or GIF.
 * Cheap and synchronous, so routes can refuse a non-image before queueing work for the pool.
 */
export function sniffImageType(buf: Uint8Array): ImageMimeType | null {
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  // RIFF....WEBP
  if (startsWith(buf, [0x52, 0x49, 0x46, 0x46]) && startsWith(buf, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  // GIF87a / GIF89a
  if (startsWith(buf, [0x47, 0x49, 0x46, 0x38]) && (buf[4] === 0x37 || buf[4] === 0x39) && buf[5] === 0x61) return 'image/gif';
  return null;
}

/**
 * Pixels decoded at most, by format. JPEG and WebP are shrunk while they are decoded (by up to 8 on each side), so a
 * 48-megapixel phone photo costs a few megabytes; PNG and GIF are decoded at full size.
 */
export const MAX_INPUT_MEGAPIXELS: Readonly<Record<ImageMimeType, number>> = Object.freeze({
  'image/jpeg': 268, 'image/webp': 268, 'image/png': 40, 'image/gif': 40,
});

/** What the resize task's refusal of a too-large image carries as its `cause` (it crosses the thread; a class would not). */
export const IMAGE_TOO_LARGE = 'image_too_large';
export const isImageTooLarge = (err: unknown): err is Error => (err as { cause?: { code?: unknown } } | null)?.cause?.code === IMAGE_TOO_LARGE;
