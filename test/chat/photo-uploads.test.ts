/**
 * Issue 40, item 10: a normal 48-megapixel phone photo was refused as "damaged". It is shrunk while it is decoded
 * and stored at 1568 pixels; an image past its format's limit is refused with its size and the limit.
 */
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closePool } from '../../workers/pool.js';
import { startChatWorld } from './helpers.js';

let w: Awaited<ReturnType<typeof startChatWorld>>;
test.before(async () => { w = await startChatWorld({ kind: 'openai', config: { vision: { uploads: { maxMB: 25 } } } }); });
test.after(async () => { await w.close(); await closePool(); });

async function upload(token: string, body: Buffer, type: string) {
  const res = await w.server.fetch(`/widget/v1/uploads?botId=${w.botId}&visitorToken=${encodeURIComponent(token)}`, {
    method: 'POST', body: new Uint8Array(body), headers: { 'content-type': type },
  });
  return { status: res.status, body: await res.json() as any };
}
const picture = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 90, g: 140, b: 60 } } });

test('an 8000x6000 phone photo (48 megapixels) is taken and stored at 1568 pixels', async () => {
  const v = await w.visitor();
  const photo = await picture(8000, 6000).jpeg({ quality: 90 }).toBuffer();
  const up = await upload(v.ready.visitorToken, photo, 'image/jpeg');
  assert.is(up.status, 201, JSON.stringify(up.body));
  assert.equal([up.body.width, up.body.height, up.body.mimeType], [1568, 1176, 'image/jpeg']);
  await v.close();
});

test('an image past its format\'s limit is refused with its size and the limit, not as damaged', async () => {
  const v = await w.visitor();
  const png = await picture(8000, 6000).png({ compressionLevel: 1 }).toBuffer();
  const up = await upload(v.ready.visitorToken, png, 'image/png');
  assert.is(up.status, 422);
  assert.is(up.body.error.message, 'body: the image is 8000x6000 pixels (48 megapixels) and at most 40 megapixels are read from a PNG; send a smaller picture');
  await v.close();
});

test.run();
