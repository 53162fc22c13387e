/**
 * The visitor's camera in headless Chromium with its fake video device, fed a clip made with ffmpeg at test time:
 * consent before the browser is asked, per_turn frames going with messages, look_at_camera on demand, continuous
 * outside voice, and a camera the browser refuses. Screenshots go to /tmp/shots/camera/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { sentOf, startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/camera';
const dir = mkdtempSync(join(tmpdir(), 'camera-'));
const clip = join(dir, 'camera.y4m');
// A moving test pattern (colour bars, a counter) as the fake camera: a real picture, not a black frame.
execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=640x480:rate=10', '-frames:v', '30', '-pix_fmt', 'yuv420p', '-y', clip]);

let w: WidgetWorld;
/** Counts the page's getUserMedia calls, so consent can be shown to come first. */
const COUNT_GUM = `(() => { const md = navigator.mediaDevices; if (!md) return; const real = md.getUserMedia.bind(md);
  window.__gum = 0; md.getUserMedia = (c) => { window.__gum++; return real(c); }; })();`;
const DENY_GUM = `(() => { navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError')); })();`;

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  w = await startWidgetWorld({ browserArgs: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${clip}`] });
});
test.after(async () => { await w.close(); rmSync(dir, { recursive: true, force: true }); });

const chat = (page: Page) => page.locator('div[role="dialog"], div[role="region"]').first();
async function openWith(webcam: Record<string, unknown>, init = COUNT_GUM): Promise<Page> {
  const botId = await w.createBot({ vision: { webcam: { enabled: true, privacyUrl: 'https://example.com/privacy', ...webcam } } });
  return w.openChat(botId, { path: `/cam-${botId}`, viewport: { width: 1100, height: 760 }, before: (p) => p.addInitScript(init) });
}
async function turnOn(page: Page) {
  await page.getByRole('button', { name: 'Turn on the camera' }).click();
  await page.getByRole('button', { name: 'Turn on camera' }).click();
  await page.locator('.campv video').waitFor();
  await page.waitForFunction(() => (window as any).__sent.some((f: any) => f.t === 'camera' && f.state === 'on'));
}
const imageParts = () => (w.fake.lastBody('/chat/completions')?.messages ?? [])
  .flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((p: any) => p.type === 'image_url');
async function say(page: Page, text: string) {
  await page.getByRole('textbox').fill(text);
  await page.keyboard.press('Enter');
}

test('the camera asks for consent with the bot\'s text and privacy link before the browser is asked', async () => {
  const page = await openWith({ mode: 'per_turn' });
  await page.getByRole('button', { name: 'Turn on the camera' }).click();
  const card = page.getByRole('dialog', { name: 'Use your camera?' });
  await card.waitFor();
  assert.match(await card.innerText(), /Turn on your camera so Ava can see what you show it\. Video is not recorded\./);
  assert.is(await card.getByRole('link').getAttribute('href'), 'https://example.com/privacy');
  assert.is(await page.evaluate(() => (window as any).__gum), 0, 'the browser was not asked yet');
  await page.screenshot({ path: `${SHOTS}/consent.png` });
  await card.getByRole('button', { name: 'Not now' }).click();
  assert.is(await page.evaluate(() => (window as any).__gum), 0, 'declining never asks the browser');
  assert.is((await sentOf(page, 'camera_frame')).length, 0);
  await page.close();
});

test('per_turn: after consent the latest frame goes with each message and reaches the model', async () => {
  const page = await openWith({ mode: 'per_turn', maxWidth: 320 });
  await turnOn(page);
  assert.is(await page.evaluate(() => (window as any).__gum), 1);
  await say(page, 'What do you see?');
  await chat(page).locator('.m.assistant').last().waitFor();
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'message' && f.message.role === 'assistant'));
  const sent = await page.evaluate(() => (window as any).__sent.map((f: any) => f.t).filter((t: string) => t === 'camera_frame' || t === 'message'));
  assert.equal(sent, ['camera_frame', 'message'], 'the frame goes just before the message');
  const parts = imageParts();
  assert.is(parts.length, 1, 'the model got the frame as an image part');
  const jpeg = Buffer.from(parts[0].image_url.url.split(',')[1], 'base64');
  const size = { w: jpeg.readUInt16BE(jpeg.indexOf(Buffer.from([0xff, 0xc0])) + 7) };
  assert.ok(size.w <= 320, `frame is at most maxWidth wide (${size.w})`);
  await page.screenshot({ path: `${SHOTS}/per-turn-live.png` });
  // Turned off: the next message goes without a picture.
  await page.getByRole('button', { name: 'Turn off the camera' }).first().click();
  await say(page, 'And now?');
  await page.waitForFunction(() => (window as any).__frames.filter((f: any) => f.t === 'message' && f.message.role === 'assistant').length === 2);
  assert.is(imageParts().length, 1, 'only the earlier turn carries a picture');
  assert.is((await sentOf(page, 'camera_frame')).length, 1);
  await page.close();
});

test('on_demand: look_at_camera takes a picture only when the agent asks, and the model sees it', async () => {
  const page = await openWith({ mode: 'on_demand' });
  await turnOn(page);
  w.fake.script([{ toolCalls: [{ name: 'look_at_camera', arguments: {} }] }, { text: 'I can see colour bars.' }]);
  await say(page, 'Can you see this?');
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'message' && f.message.text === 'I can see colour bars.'));
  const frames = await sentOf(page, 'camera_frame');
  assert.is(frames.length, 1, 'one picture, when asked');
  assert.ok(frames[0].requestId, 'it answers the camera_request');
  assert.is(imageParts().length, 1);
  await chat(page).getByText('Ava took a picture with your camera').waitFor();
  await page.screenshot({ path: `${SHOTS}/on-demand.png` });
  await page.close();
});

test('continuous outside a voice session works like per_turn', async () => {
  const page = await openWith({ mode: 'continuous' });
  await turnOn(page);
  // This bot has no voice: the preview must not promise a live view.
  await chat(page).locator('.campv', { hasText: 'a picture goes with each message' }).waitFor();
  assert.not.match(await chat(page).locator('.campv').textContent() ?? '', 'live view');
  await say(page, 'Look');
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'message' && f.message.role === 'assistant'));
  assert.is((await sentOf(page, 'camera_frame')).length, 1);
  assert.is(imageParts().length, 1);
  // Closing the chat window turns the camera off.
  await page.getByRole('button', { name: 'Close chat' }).first().click();
  await page.waitForFunction(() => (window as any).__sent.some((f: any) => f.t === 'camera' && f.state === 'off'));
  assert.is(await page.evaluate(() => (window as any).__gum), 1);
  await page.close();
});

test('a camera the browser refuses gets a clear line and sends nothing', async () => {
  const page = await openWith({ mode: 'per_turn' }, DENY_GUM);
  await page.getByRole('button', { name: 'Turn on the camera' }).click();
  await page.getByRole('button', { name: 'Turn on camera' }).click();
  await chat(page).getByText('Camera access was blocked').waitFor();
  assert.equal((await sentOf(page, 'camera')).map((f) => f.state), ['denied']);
  await say(page, 'hello');
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'message' && f.message.role === 'assistant'));
  assert.is((await sentOf(page, 'camera_frame')).length, 0);
  await page.screenshot({ path: `${SHOTS}/denied.png` });
  await page.close();
});

test.run();
