/**
 * Custom faces and lip sync (docs/faces.md): a face made from a photo and its 468 landmarks (a painted portrait,
 * test/widget/face-photo.ts) animated as a WebGL mesh, with no gaps torn in it; and the mouth following the audio
 * of a spoken reply. Screenshots: /tmp/shots/face/custom-*.png, lipsync-*.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startWidgetWorld, type WidgetWorld } from './world.js';
import { faceState, openFace, sample, SHOTS } from './face-world.js';
import { paintPortrait, syntheticLandmarks } from './face-photo.js';

let w: WidgetWorld;
let faceId: string;

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  w = await startWidgetWorld();
  const page = await w.newPage();
  const image = await paintPortrait(page);
  writeFileSync(`${SHOTS}/custom-photo.png`, Buffer.from(image.split(',')[1], 'base64'));
  const r = await w.server.request('POST', '/api/v1/faces', { body: { name: 'Painted portrait', image, landmarks: syntheticLandmarks() }, headers: w.owner.headers });
  assert.is(r.status, 201, JSON.stringify(r.body));
  faceId = r.body.id;
  await page.context().close();
});
test.after(async () => { await w?.close(); });

/** Draws the face in `state`, then reads the canvas: how many pixels of the face's middle are not opaque, and a copy of the mouth area. */
const drawAndRead = (page: Page, state: { level?: number; mood?: string; offline?: boolean }) => page.evaluate(async (s) => {
  const el = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as any;
  el.face.setStill(false);
  if (s.mood) el.face.setMood(s.mood);
  el.face.setOffline(!!s.offline);
  el.face.setLevel(s.level ?? 0);
  await new Promise((r) => setTimeout(r, 700));
  const gl = el.querySelector('canvas') as HTMLCanvasElement;
  const c = document.createElement('canvas');
  c.width = gl.width; c.height = gl.height;
  const g = c.getContext('2d')!;
  g.drawImage(gl, 0, 0);
  const { data } = g.getImageData(0, 0, c.width, c.height);
  let holes = 0;
  const r = c.width * 0.42, m = c.width / 2;
  for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) if ((x - m) ** 2 + (y - m) ** 2 < r * r && data[(y * c.width + x) * 4 + 3] < 250) holes++;
  const mouth = Array.from(g.getImageData(Math.round(c.width * 0.35), Math.round(c.height * 0.6), Math.round(c.width * 0.3), Math.round(c.height * 0.2)).data);
  return { holes, mouth };
}, state);

test('a custom face is drawn from its photo and landmarks and moves without tearing', async () => {
  const bot = await w.createBot({ face: { skin: { kind: 'custom', assetId: faceId } } });
  // The test reads the WebGL canvas back after it was shown, so its pixels must be kept (the engine does not keep them).
  const keep = `{ const get = HTMLCanvasElement.prototype.getContext; HTMLCanvasElement.prototype.getContext = function (kind, o) { return get.call(this, kind, kind === 'webgl' ? { ...o, preserveDrawingBuffer: true } : o); }; }`;
  const page = await openFace(w, bot, { layout: 'floating', theme: { mode: 'light' } }, {}, keep);
  await page.locator('.fc[data-kind=custom] canvas').waitFor();
  assert.is((await faceState(page)).kind, 'custom');
  const rest = await drawAndRead(page, {});
  await page.locator('.fc').screenshot({ path: `${SHOTS}/custom-rest.png` });
  const talking = await drawAndRead(page, { level: 0.9 });
  await page.locator('.fc').screenshot({ path: `${SHOTS}/custom-talking.png` });
  const diff = rest.mouth.reduce((n, v, i) => n + Math.abs(v - talking.mouth[i]), 0) / rest.mouth.length;
  assert.ok(diff > 4, `the mouth opens (mean change ${diff.toFixed(1)})`);
  for (const [name, s] of [['happy', { mood: 'happy' }], ['surprised', { mood: 'surprised', level: 0.3 }], ['sad', { mood: 'sad' }], ['asleep', { offline: true }]] as const) {
    const r = await drawAndRead(page, s);
    assert.is(r.holes, 0, `${name}: no gaps in the mesh`);
    await page.locator('.fc').screenshot({ path: `${SHOTS}/custom-${name}.png` });
  }
  assert.is(rest.holes + talking.holes, 0, 'no gaps at rest or talking');
  const panel = await openFace(w, bot, { layout: 'panel', theme: { mode: 'dark' } });
  await panel.locator('.fc[data-kind=custom] canvas').waitFor();
  await panel.waitForTimeout(300);
  await panel.screenshot({ path: `${SHOTS}/custom-panel-dark.png` });
});

test('a custom face that cannot be loaded leaves a catalogue face in its place', async () => {
  const bot = await w.createBot({ face: { skin: { kind: 'custom', assetId: faceId } } });
  await w.server.request('DELETE', `/api/v1/faces/${faceId}x`, { headers: w.owner.headers });
  const page = await openFace(w, bot);
  await page.evaluate(() => 0);
  assert.ok(['svg', 'custom'].includes((await faceState(page)).kind));
});

test('the mouth follows the audio of a spoken reply (lip sync), and closes when it ends', async () => {
  const bot = await w.createBot({ appearance: { theme: { mode: 'light' }, face: { textReplies: 'speak' } } });
  const page = await openFace(w, bot);
  w.fake.speech.chunkIntervalMs = 60;
  w.fake.script({ text: 'We open at nine in the morning. We close at five in the afternoon.' });
  await page.locator('.cp textarea').type('hours?');
  await page.keyboard.press('Enter');
  await page.locator('.hd .sound.playing').waitFor();
  const talk = await sample(page, 700, 'talk');
  await page.screenshot({ path: `${SHOTS}/lipsync-speaking.png` });
  assert.ok(Math.max(...talk) > 0.3, `the mouth opens with the voice (${Math.max(...talk).toFixed(2)})`);
  await page.locator('.hd .sound:not(.playing)').waitFor({ timeout: 10_000 });
  await page.waitForTimeout(300);
  assert.ok((await faceState(page)).talk < 0.05, 'closed after the reply');
});

test('in the floating layout the photo face is a whole circle, its shadows not clipped', async () => {
  const bot = await w.createBot({ face: { skin: { kind: 'custom', assetId: faceId } } });
  const page = await openFace(w, bot, { layout: 'floating', theme: { mode: 'light' } });
  const canvas = page.locator('.fc[data-kind=custom] canvas');
  await canvas.waitFor();
  const fc = await page.locator('.fc').boundingBox();
  const c = await canvas.boundingBox();
  assert.ok(Math.abs(c!.width - c!.height) <= 1, `round, not squashed: ${c!.width}x${c!.height}`);
  assert.is(await page.locator('.fc').evaluate((el) => getComputedStyle(el).overflow), 'visible', 'nothing clipped');
  assert.is(await canvas.evaluate((el) => getComputedStyle(el).borderRadius), '50%');
  // The ground shadow lies in the band under the circle, outside it.
  assert.ok(fc!.y + fc!.height - (c!.y + c!.height) >= 8, 'room for the ground shadow below the face');
  await page.locator('.fc').screenshot({ path: `${SHOTS}/custom-floating-shadow.png` });
});

test.run();
