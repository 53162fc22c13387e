/**
 * Faces in the panel: a photo goes through the widget's `ServiceChat.skinFromPhoto` (stubbed here with fixed
 * landmarks: the face finder itself is the widget's and tested there) and is uploaded; it is listed with its
 * image, and deleted after a confirmation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const FACE = readFileSync(new URL('../fixtures/faces/generated-face.jpg', import.meta.url));
/** @mediapipe/face_mesh 0.4.1657299874 aborts in browsers (mediapipe issue #3504): then the finder can only fail, clearly. */
const meshWorks = createRequire(import.meta.url)('@mediapipe/face_mesh/package.json').version !== '0.4.1657299874';

let server: TestServer;
let owner: TestSession;
let b: AdminBrowser;
let page: Page;

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server, { workspaceName: 'Acme' });
  b = await startAdminBrowser(server);
  page = await b.open('faces');
  // A string, not a function: tsx would wrap named functions in a helper the page does not have.
  await page.addInitScript(`window.ServiceChat = { skinFromPhoto: (photo) => new Promise((resolve) => {
    const r = new FileReader();
    r.onload = () => resolve({ image: String(r.result), landmarks: Array.from({ length: 468 }, (_, i) => [0.3 + (i % 20) / 50, 0.3 + Math.floor(i / 20) / 60, 0]) });
    r.readAsDataURL(photo);
  }) };`);
  await page.reload();
  await signIn(page, owner.email);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
});

test('a photo becomes a face that is listed with its image, and deleting asks first', async () => {
  await page.goto(`${server.url}/admin/#/faces`);
  await page.locator('h1', { hasText: 'Faces' }).waitFor();
  await page.locator('form[name="face-upload"]').waitFor();
  const png = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 320; c.height = 320;
    const g = c.getContext('2d')!;
    g.fillStyle = '#f3d2b3'; g.fillRect(0, 0, 320, 320);
    g.fillStyle = '#333'; g.beginPath(); g.arc(110, 130, 14, 0, 7); g.arc(210, 130, 14, 0, 7); g.fill();
    return c.toDataURL('image/png').split(',')[1]!;
  });
  await page.setInputFiles('input[name="photo"]', { name: 'kim.png', mimeType: 'image/png', buffer: Buffer.from(png, 'base64') });
  await page.fill('form[name="face-upload"] input[name="name"]', 'Kim');
  await page.click('form[name="face-upload"] button[type="submit"]');
  await page.locator('.faces h3', { hasText: 'Kim' }).waitFor();
  await page.waitForFunction(() => { const i = document.querySelector('.faces img') as HTMLImageElement | null; return !!i && i.complete && i.naturalWidth > 0; });
  const faces = await server.request('GET', '/api/v1/faces', { headers: owner.headers });
  assert.is(faces.body.items.length, 1);
  await expectAxeClean(page, 'faces (one face)');
  await screenshots(page, '/tmp/shots/admin', 'faces-one');

  await page.click('.faces button:has-text("Delete")');
  await page.click('dialog[open] button:has-text("Delete")');
  await page.locator('h2', { hasText: 'No custom faces yet' }).waitFor();
  assert.is((await server.request('GET', '/api/v1/faces', { headers: owner.headers })).body.items.length, 0);
  assert.equal(b.errors, []);
});

test('the real face finder runs under the panel CSP: a photo becomes a face, or the finder message is shown', async () => {
  const p = await b.open('faces');
  await signIn(p, owner.email);
  await p.locator('form[name="face-upload"]').waitFor();
  await p.setInputFiles('input[name="photo"]', { name: 'generated-face.jpg', mimeType: 'image/jpeg', buffer: FACE });
  await p.click('form[name="face-upload"] button[type="submit"]');
  if (meshWorks) {
    await p.locator('.faces h3', { hasText: 'generated-face' }).waitFor({ timeout: 30_000 });
  } else {
    const err = p.locator('#add-face .error');
    await err.waitFor({ timeout: 30_000 });
    const text = (await err.textContent()) ?? '';
    assert.ok(text.length > 10);
    assert.not.match(text, 'Content Security Policy');
  }
  await screenshots(p, '/tmp/shots/admin', 'faces-finder');
  assert.equal(b.errors.filter((e) => /Content Security Policy/.test(e)), []);
});

test.run();
