import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { closePool, configurePool, PoolBusyError, poolStats, runTask } from '../../workers/pool.js';
import { isImageTooLarge, sniffImageType } from '../../workers/image-types.js';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try { await promise; } catch (err) { return err as Error; }
  throw new Error('expected the promise to reject, but it resolved');
}

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } });

test.after(async () => {
  await closePool();
});

test('a large PNG comes back with its longest edge at 1568 pixels and the same aspect ratio', async () => {
  const png = await solid(4000, 3000).png().toBuffer();
  const out = await runTask('resize-image', { data: png, maxEdgePx: 1568 });
  assert.is(out.width, 1568);
  assert.is(out.height, 1176);
  assert.is(out.mimeType, 'image/png');
  assert.ok(Buffer.isBuffer(out.data));
  const meta = await sharp(out.data).metadata();
  assert.equal([meta.format, meta.width, meta.height], ['png', 1568, 1176]);
});

test('a photo is turned upright by its EXIF orientation before resizing', async () => {
  // Stored landscape 3000x2000 with orientation 6 (rotate 90° clockwise to view): upright it is portrait.
  const jpeg = await solid(3000, 2000).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const out = await runTask('resize-image', { data: jpeg, maxEdgePx: 1568 });
  assert.is(out.mimeType, 'image/jpeg');
  assert.is(out.height, 1568);
  assert.is(out.width, 1045);
  const meta = await sharp(out.data).metadata();
  assert.is(meta.orientation, undefined, 'orientation metadata is dropped once applied');
});

test('a small image is not enlarged and can be converted to WebP', async () => {
  const png = await solid(300, 200).png().toBuffer();
  const out = await runTask('resize-image', { data: png, maxEdgePx: 1568, format: 'webp' });
  assert.equal([out.width, out.height, out.mimeType], [300, 200, 'image/webp']);
  assert.is(sniffImageType(out.data), 'image/webp');
});

test('a file that is not an image is rejected with a clear error', async () => {
  const err = await rejection(runTask('resize-image', { data: Buffer.from('%PDF-1.7 definitely not a picture'), maxEdgePx: 1568 }));
  assert.match(err.message, /unsupported image type: expected JPEG, PNG, WebP or GIF/);
});

test('a 48-megapixel phone photo (8000x6000 JPEG) is shrunk while it is decoded to 1568 pixels', async () => {
  const jpeg = await solid(8000, 6000).jpeg({ quality: 90 }).toBuffer();
  const out = await runTask('resize-image', { data: jpeg, maxEdgePx: 1568 });
  assert.equal([out.width, out.height, out.mimeType], [1568, 1176, 'image/jpeg']);
});

test('an image past its format\'s limit is refused before it is decoded, with its size and the limit', async () => {
  const png = await solid(8000, 6000).png({ compressionLevel: 1 }).toBuffer();
  const err = await rejection(runTask('resize-image', { data: png, maxEdgePx: 1568 }));
  assert.is(err.message, 'the image is 8000x6000 pixels (48 megapixels) and at most 40 megapixels are read from a PNG; send a smaller picture');
  assert.ok(isImageTooLarge(err), 'the refusal says what it is across the thread');
});

test('a bad maxEdgePx is refused with the field named', async () => {
  const png = await solid(10, 10).png().toBuffer();
  const err = await rejection(runTask('resize-image', { data: png, maxEdgePx: 0 }));
  assert.match(err.message, /maxEdgePx/);
});

test('sniffImageType recognises JPEG, PNG, WebP and GIF by their first bytes and nothing else', async () => {
  assert.is(sniffImageType(await solid(4, 4).jpeg().toBuffer()), 'image/jpeg');
  assert.is(sniffImageType(await solid(4, 4).png().toBuffer()), 'image/png');
  assert.is(sniffImageType(await solid(4, 4).webp().toBuffer()), 'image/webp');
  assert.is(sniffImageType(await solid(4, 4).gif().toBuffer()), 'image/gif');
  assert.is(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
  assert.is(sniffImageType(new Uint8Array([0xff, 0xd8])), null);
  assert.is(sniffImageType(new Uint8Array()), null);
});

test('a GIF is accepted and comes back as a PNG of its first frame', async () => {
  const gif = await solid(2000, 1000).gif().toBuffer();
  const out = await runTask('resize-image', { data: gif, maxEdgePx: 1568 });
  assert.equal([out.width, out.height, out.mimeType], [1568, 784, 'image/png']);
});

test('an aborted signal cancels a task, and the pool keeps working afterwards', async () => {
  const png = await solid(4000, 3000).png().toBuffer();
  const already = new AbortController();
  already.abort();
  assert.is((await rejection(runTask('resize-image', { data: png, maxEdgePx: 1568 }, { signal: already.signal }))).name, 'AbortError');

  const during = new AbortController();
  const pending = runTask('resize-image', { data: png, maxEdgePx: 1568 }, { signal: during.signal });
  during.abort();
  assert.is((await rejection(pending)).name, 'AbortError');

  const out = await runTask('resize-image', { data: png, maxEdgePx: 800 });
  assert.is(out.width, 800);
});

test('a full pool queue refuses new tasks with PoolBusyError, and closePool ends the threads', async () => {
  await closePool();
  configurePool({ interactive: { minThreads: 1, maxThreads: 1, maxQueue: 1 } });
  const png = await solid(3000, 3000).png().toBuffer();
  const runs = Array.from({ length: 4 }, () => runTask('resize-image', { data: png, maxEdgePx: 100 }).then(() => 'ok', (err: unknown) => err));
  const results = await Promise.all(runs);
  assert.ok(results.some((r) => r instanceof PoolBusyError && r.code === 'pool_busy'), 'some task was refused');
  assert.ok(results.includes('ok'), 'the accepted tasks ran');
  await closePool();
  configurePool({});
  const none = { threads: 0, queued: 0, running: 0, completed: 0, ended: 0 };
  assert.equal(poolStats(), { interactive: none, ingest: none, search: none, isolated: none });
});

test.run();
