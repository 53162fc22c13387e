/**
 * Faces in the panel: a photo goes through the widget's `ServiceChat.skinFromPhoto` (stubbed here with fixed
 * landmarks: the face finder itself is the widget's and tested there) and is uploaded; it is listed with its
 * image, and deleted after a confirmation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

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

test.run();
