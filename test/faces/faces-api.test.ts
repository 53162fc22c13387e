import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorld, type World } from '../bots-api/setup.js';

let w: World;
test.before(async () => { w = await startWorld(); });
test.after(async () => { await w.close(); });

const landmarks = (n = 468) => Array.from({ length: n }, (_, i) => [(i % 26) / 26, Math.floor(i / 26) / 18, -0.05 + (i % 10) / 100]);
const image = (width: number, height: number, format: 'png' | 'jpeg' = 'png') =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 150, b: 120 } } }).toFormat(format).toBuffer();
const upload = (body: unknown) => w.as('POST', '/api/v1/faces', body);

let faceId = '';

test('a photo with 468 landmarks becomes a face, resized, listed and served to the widget', async () => {
  const png = await image(2048, 1536, 'jpeg');
  const r = await upload({ name: 'Me', image: png.toString('base64'), landmarks: landmarks() });
  assert.is(r.status, 201, JSON.stringify(r.body));
  faceId = r.body.id;
  assert.is(r.body.name, 'Me');
  assert.is(r.body.width, 1024);
  assert.is(r.body.height, 768);
  const list = await w.as('GET', '/api/v1/faces');
  assert.equal(list.body.items.map((f: any) => f.id), [faceId]);

  // Public: the widget on a visitor's page has no credentials.
  const img = await fetch(`${w.server.url}/api/v1/faces/${faceId}/image`);
  assert.is(img.status, 200);
  assert.is(img.headers.get('content-type'), 'image/jpeg');
  const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
  assert.is(meta.width, 1024);
  const lm = await fetch(`${w.server.url}/api/v1/faces/${faceId}/landmarks`);
  assert.is(lm.status, 200);
  assert.equal((await lm.json()).landmarks, landmarks());
});

test('a data: URL is accepted as the image', async () => {
  const png = await image(300, 400);
  const r = await upload({ name: 'Data URL', image: `data:image/png;base64,${png.toString('base64')}`, landmarks: landmarks() });
  assert.is(r.status, 201);
  assert.is(r.body.contentType, 'image/png');
  assert.is(r.body.width, 300);
  assert.is((await w.as('DELETE', `/api/v1/faces/${r.body.id}`)).status, 204);
});

test('467 landmarks give 422 naming landmarks', async () => {
  const png = await image(300, 300);
  const r = await upload({ name: 'Short', image: png.toString('base64'), landmarks: landmarks(467) });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /^landmarks: must hold exactly 468 points/);
});

test('a landmark out of range gives 422 naming the point', async () => {
  const png = await image(300, 300);
  const points = landmarks();
  points[5] = [1.5, 0.5, 0];
  const r = await upload({ name: 'Off', image: png.toString('base64'), landmarks: points });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /landmarks\.5\.0/);
  points[5] = [0.5, 0.5, 40];
  assert.match((await upload({ name: 'Deep', image: png.toString('base64'), landmarks: points })).body.error.message, /landmarks\.5\.2/);
});

test('a file that is not an image gives 422 naming image', async () => {
  const r = await upload({ name: 'Text', image: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>').toString('base64'), landmarks: landmarks() });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /^image: not a JPEG, PNG, WebP or GIF/);
  const junk = await upload({ name: 'Junk', image: 'not base64 !!', landmarks: landmarks() });
  assert.is(junk.status, 422);
  assert.match(junk.body.error.message, /^image:/);
});

test('a damaged image with valid magic bytes gives 422', async () => {
  const png = await image(300, 300);
  const r = await upload({ name: 'Cut', image: png.subarray(0, 40).toString('base64'), landmarks: landmarks() });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /^image:/);
});

test('a tiny image or one over 5 MB is refused', async () => {
  const tiny = await upload({ name: 'Tiny', image: (await image(20, 20)).toString('base64'), landmarks: landmarks() });
  assert.is(tiny.status, 422);
  assert.match(tiny.body.error.message, /too small/);
  const big = Buffer.alloc(5.2 * 1024 * 1024, 7);
  big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const r = await upload({ name: 'Big', image: big.toString('base64'), landmarks: landmarks() });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /^image: larger than 5 MB/);
  const justOver = Buffer.alloc(5 * 1024 * 1024 + 100, 7);
  justOver.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const r2 = await upload({ name: 'Just over', image: justOver.toString('base64'), landmarks: landmarks() });
  assert.is(r2.status, 422);
  assert.match(r2.body.error.message, /^image: larger than 5 MB/);
});

test('a face a bot uses cannot be deleted until the bot lets go of it', async () => {
  const bot = (await w.as('POST', '/api/v1/bots', { name: 'Face user' })).body;
  // Objects merge, so a different kind of skin goes through null.
  const p1 = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { face: { skin: null } } });
  const p2 = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: p1.body.revision, patch: { face: { skin: { kind: 'custom', assetId: faceId } } } });
  assert.is(p2.status, 200);
  const r = await w.as('DELETE', `/api/v1/faces/${faceId}`);
  assert.is(r.status, 409);
  assert.equal(r.body.error.details.bots, [{ id: bot.id, name: 'Face user' }]);
  await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: p2.body.revision, patch: { face: { skin: null } } });
  assert.is((await w.as('DELETE', `/api/v1/faces/${faceId}`)).status, 204);
  assert.is((await fetch(`${w.server.url}/api/v1/faces/${faceId}/image`)).status, 404);
  assert.is((await w.as('DELETE', `/api/v1/faces/${faceId}`)).status, 404);
});

test.run();
