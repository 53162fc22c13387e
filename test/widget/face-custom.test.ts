/**
 * Custom faces and lip sync (docs/faces.md): a face made from a photo and its 468 landmarks (a painted portrait,
 * test/widget/face-photo.ts) animated as a WebGL mesh, with no gaps torn in it; and the mouth following the audio
 * of a spoken reply. Screenshots: /tmp/shots/face/custom-*.png, lipsync-*.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { until } from '../helpers/until.js';
import { startWidgetWorld, type WidgetWorld } from './world.js';
import { faceState, openFace, sample, SHOTS } from './face-world.js';
import { paintPortrait, SIZE, syntheticLandmarks } from './face-photo.js';
import { buildMesh, deform, EYES, LIPS_IN_LOW, LIPS_IN_UP } from '../../widget/src/face/mesh.js';
import type { Frame } from '../../widget/src/face/motion.js';

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

/**
 * Puts the face in `state` (held still, or alive: blinking and breathing), waits until its pose has settled (no
 * value but breath and gaze moving by 0.001 over three frames, no blink under way; at most 3 s), then reads the
 * canvas: the pixels of the face's middle that are not opaque, a copy of the mouth area and, with `pixels`, all of it.
 */
const readFace = (page: Page, state: { level?: number; mood?: string; offline?: boolean }, opts: { still: boolean; pixels?: boolean }) => page.evaluate(async ({ s, o }) => {
  const el = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as any;
  el.face.setStill(o.still);
  el.face.setMood(s.mood ?? 'content');
  el.face.setOffline(!!s.offline);
  el.face.setLevel(s.level ?? 0);
  // (No named functions in here: the test's compiler would wrap them in a helper the page does not have.)
  const deadline = performance.now() + 3000;
  let last: Record<string, number> = { ...el.face.frame }, calm = 0;
  while (calm < 3) {
    if (performance.now() > deadline) throw new Error(`the face did not settle within 3 s: ${JSON.stringify(el.face.frame)}`);
    await new Promise((r) => requestAnimationFrame(r));
    const now: Record<string, number> = { ...el.face.frame };
    const moved = Object.keys(now).some((k) => !['breathe', 'gx', 'gy'].includes(k) && Math.abs(last[k] - now[k]) > 0.001);
    calm = moved || now.blink > 0 ? 0 : calm + 1;
    last = now;
  }
  await new Promise((r) => requestAnimationFrame(r));
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
  return { holes, mouth, size: c.width, data: o.pixels ? Array.from(data) : [], frame: { ...el.face.frame } };
}, { s: state, o: opts });
const drawAndRead = (page: Page, state: { level?: number; mood?: string; offline?: boolean }) => readFace(page, state, { still: false });
const holdAndRead = (page: Page, state: { mood?: string; offline?: boolean }) => readFace(page, state, { still: true, pixels: true });

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

const inPolygon = (poly: Array<[number, number]>, x: number, y: number) => {
  let odd = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i], [xj, yj] = poly[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
  }
  return odd;
};

/** The canvas pixels inside `ids`' polygon, as the frame placed those points, shrunk by `k` about its middle. */
function pixelsIn(read: { size: number; data: number[]; frame: Frame }, ids: number[], k: number, rest = false) {
  const mesh = buildMesh(syntheticLandmarks(), SIZE, SIZE);
  const at = new Float32Array(mesh.rest.length);
  deform(mesh, read.frame, at);
  const src = rest ? mesh.rest : at, c = mesh.crop, n = read.size;
  const poly = ids.map((i): [number, number] => [((src[i * 2] - c.x) / c.s) * n, ((src[i * 2 + 1] - c.y) / c.s) * n]);
  const mx = poly.reduce((a, p) => a + p[0], 0) / poly.length, my = poly.reduce((a, p) => a + p[1], 0) / poly.length;
  const small = poly.map(([x, y]): [number, number] => [mx + (x - mx) * k, my + (y - my) * k]);
  const out: Array<[number, number, number]> = [];
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (inPolygon(small, x + 0.5, y + 0.5)) {
    const o = (y * n + x) * 4;
    out.push([read.data[o], read.data[o + 1], read.data[o + 2]]);
  }
  return out;
}

const share = (px: Array<[number, number, number]>, test: (p: [number, number, number]) => boolean) => px.filter(test).length / px.length;

test('the photo face: an open mouth is dark inside with no lip streaks; shut eyes are lid skin with no white', async () => {
  const bot = await w.createBot({ face: { skin: { kind: 'custom', assetId: faceId } } });
  const keep = `{ const get = HTMLCanvasElement.prototype.getContext; HTMLCanvasElement.prototype.getContext = function (kind, o) { return get.call(this, kind, kind === 'webgl' ? { ...o, preserveDrawingBuffer: true } : o); }; }`;
  const page = await openFace(w, bot, { layout: 'floating', theme: { mode: 'light' } }, {}, keep);
  await page.locator('.fc[data-kind=custom] canvas').waitFor();
  const zoom = async (name: string) => {
    await page.locator('.fc').screenshot({ path: `${SHOTS}/custom-${name}.png` });
    // The face's canvas at three times its size, pixel for pixel (no smoothing), to see streaks a pixel wide.
    const url = await page.evaluate(() => {
      const gl = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc canvas') as HTMLCanvasElement;
      const c = document.createElement('canvas');
      c.width = gl.width * 3; c.height = gl.height * 3;
      const g = c.getContext('2d')!;
      g.imageSmoothingEnabled = false;
      g.drawImage(gl, 0, 0, c.width, c.height);
      return c.toDataURL('image/png');
    });
    writeFileSync(`${SHOTS}/custom-${name}-3x.png`, Buffer.from(url.split(',')[1], 'base64'));
  };
  // The mouth wide open (the surprised pose): the opening between the inner lip contours, less a rim for smoothing.
  const open = await holdAndRead(page, { mood: 'surprised' });
  assert.ok(open.frame.jaw > 0.5, 'the mouth is open');
  const mouth = pixelsIn(open, [...LIPS_IN_UP, ...LIPS_IN_LOW.slice().reverse()], 0.92);
  const dark = share(mouth, ([r, g, b]) => Math.max(r, g, b) < 90);
  const lip = share(mouth, ([r, g]) => r > 120 && r - g > 70);
  await zoom('mouth-open');
  // The eyes shut (asleep): where the eye was at rest is all lid now.
  const shut = await holdAndRead(page, { offline: true });
  await zoom('eyes-shut');
  const eyes = EYES.map((eye) => {
    const px = pixelsIn(shut, [...eye.up, ...eye.low.slice().reverse()], 0.85, true);
    return { white: share(px, ([r, g, b]) => Math.min(r, g, b) > 190), skin: share(px, ([r, g, b]) => r > 150 && r > g && g > b && r - b > 40) };
  });
  const pc = (v: number) => `${(v * 100).toFixed(1)}%`;
  const figures = `mouth ${mouth.length} px: ${pc(dark)} dark, ${pc(lip)} lip-coloured; shut eyes: ${eyes.map((e) => `${pc(e.white)} near-white, ${pc(e.skin)} skin`).join(' / ')}`;
  assert.ok(mouth.length > 80, `the opening is seen (${figures})`);
  assert.ok(dark > 0.95, `the open mouth is dark inside (${figures})`);
  assert.is(lip, 0, `no lip-coloured streaks across the opening (${figures})`);
  assert.ok(shut.frame.open < 0.1, 'the eyes are shut');
  for (const e of eyes) {
    assert.ok(e.white < 0.02, `no white streak between shut lids, at most a pixel of the lid line (${figures})`);
    assert.ok(e.skin > 0.6, `a shut eye is lid skin (${figures})`);
  }
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
  // Every animation frame from here on: whether the reply's sound plays, and how open the mouth is.
  // (A string: a function declared in page code passed as a function would carry tsx's __name helper.)
  await page.evaluate(`(() => {
    const root = document.querySelector('[data-service-chat]').shadowRoot;
    const lip = window.__lip = [];
    const frame = () => {
      lip.push({ playing: root.querySelector('.hd .sound.playing') !== null, talk: root.querySelector('.fc').face.frame.talk });
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })()`);
  await page.locator('.cp textarea').type('hours?');
  await page.keyboard.press('Enter');
  await page.locator('.hd .sound.playing').waitFor();
  const talk = await sample(page, 700, 'talk');
  await page.screenshot({ path: `${SHOTS}/lipsync-speaking.png` });
  assert.ok(Math.max(...talk) > 0.3, `the mouth opens with the voice (${Math.max(...talk).toFixed(2)})`);
  await page.locator('.hd .sound:not(.playing)').waitFor({ timeout: 10_000 });
  // Closes as jaws do (70 ms to ease: 13 frames at 60 a second, as few as 3 on a busy page, whose frames come late
  // and each moves the face up to 100 ms): counted in the page's frames from the audio's end, not in time here.
  const closing = () => page.evaluate(() => {
    const lip: { playing: boolean; talk: number }[] = (window as any).__lip;
    const end = lip.findLastIndex((f, i) => i > 0 && lip[i - 1].playing && !f.playing);
    const shut = end < 0 ? -1 : lip.findIndex((f, i) => i >= end && f.talk < 0.05);
    return { end, shut, after: lip.slice(end, end + 60).map((f) => f.talk.toFixed(2)).join(' ') };
  });
  await until(async () => (await closing()).shut >= 0, { timeout: 10_000, message: 'the mouth to close after the audio ended' });
  const { end, shut, after } = await closing();
  console.log(`  the mouth closed ${shut - end} frames after the audio ended (${after})`);
  assert.ok(shut - end <= 40, `the mouth closed ${shut - end} frames after the audio ended (the mouth by frame: ${after})`);
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
