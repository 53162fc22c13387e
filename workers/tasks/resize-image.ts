/**
 * Piscina task: shrink an uploaded image so its longest edge fits `maxEdgePx`, turned upright by its EXIF
 * orientation (metadata is not copied to the output, so location data is dropped too).
 */
import sharp from 'sharp';
import { IMAGE_TOO_LARGE, MAX_INPUT_MEGAPIXELS, sniffImageType, type ImageMimeType } from '../image-types.js';
import { reportsStart } from '../started.js';

export type ResizeOutputFormat = 'jpeg' | 'png' | 'webp';

export interface ResizeImageInput {
  data: Uint8Array;
  /** Longest edge of the output in pixels; smaller images are not enlarged. 1568 for chat uploads. */
  maxEdgePx: number;
  /** Output format; by default the input's (a GIF becomes a PNG of its first frame). */
  format?: ResizeOutputFormat;
}

export interface ResizeImageOutput {
  data: Uint8Array;
  mimeType: ImageMimeType;
  width: number;
  height: number;
}


// Parallelism comes from the pool's threads; one libvips thread each keeps a 2-core machine from oversubscribing.
sharp.concurrency(1);
sharp.cache(false);

const OUTPUT_MIME: Record<ResizeOutputFormat, ImageMimeType> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
const DEFAULT_FORMAT: Record<ImageMimeType, ResizeOutputFormat> = {
  'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'png',
};

async function resizeImage(input: ResizeImageInput): Promise<ResizeImageOutput> {
  const { data, maxEdgePx } = input;
  if (!Number.isInteger(maxEdgePx) || maxEdgePx < 1 || maxEdgePx > 16_384) {
    throw new RangeError(`maxEdgePx must be an integer from 1 to 16384, got ${maxEdgePx}`);
  }
  if (input.format !== undefined && !(input.format in OUTPUT_MIME)) {
    throw new RangeError(`format must be jpeg, png or webp, got ${String(input.format)}`);
  }
  const type = sniffImageType(data);
  if (!type) throw new TypeError('unsupported image type: expected JPEG, PNG, WebP or GIF');

  // Bigger images are refused before they are decoded: a small file can claim a huge canvas (a decompression bomb).
  const limit = MAX_INPUT_MEGAPIXELS[type];
  const meta = await sharp(data, { limitInputPixels: false }).metadata(); // the header only
  const image = sharp(data, { limitInputPixels: limit * 1_000_000, failOn: 'error' });
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (pixels > limit * 1_000_000) {
    const name = type.slice('image/'.length).toUpperCase();
    throw new RangeError(`the image is ${meta.width}x${meta.height} pixels (${Math.round(pixels / 1_000_000)} megapixels) and at most ${limit} megapixels are read from a ${name}; send a smaller picture`, { cause: { code: IMAGE_TOO_LARGE } });
  }
  const format = input.format ?? DEFAULT_FORMAT[type];
  const { data: out, info } = await image
    .rotate() // no angle: orient by EXIF
    .resize({ width: maxEdgePx, height: maxEdgePx, fit: 'inside', withoutEnlargement: true })
    .toFormat(format)
    .toBuffer({ resolveWithObject: true });
  return { data: out, mimeType: OUTPUT_MIME[format], width: info.width, height: info.height };
}

export default reportsStart(resizeImage);
