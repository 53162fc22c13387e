/**
 * The panel's shell as people use it: keyboard only (skip link, focus ring, the confirm dialog), the menu at
 * 390 px, a network failure in words, what a viewer is (not) offered on the providers page, and dark mode
 * axe-clean.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { addMember, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

let server: TestServer;
let fake: FakeOpenAI;
let owner: TestSession;
let viewer: TestSession;
let b: AdminBrowser;
let page: Page;

test.before(async () => {
  [server, fake] = await Promise.all([startTestServer(), startFakeOpenAI()]);
  owner = await setupOwner(server, { workspaceName: 'Acme' });
  viewer = await addMember(server, owner, 'viewer', { email: 'vera@example.com', name: 'Vera Viewer' });
  const conn = await server.request('POST', '/api/v1/providers', { body: { kind: 'openai', name: 'OpenAI', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, headers: owner.headers });
  assert.is(conn.status, 201);
  b = await startAdminBrowser(server);
  page = await b.open('providers');
  await signIn(page, owner.email);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await fake?.close();
});

const focused = (p: Page) => p.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  return { tag: el?.tagName ?? '', text: el?.textContent?.trim() ?? '', id: el?.id ?? '', outline: el ? getComputedStyle(el).outlineStyle : 'none' };
});

test('keyboard only: the skip link comes first, focus is visible, and the nav is reached in order', async () => {
  await page.goto(`${server.url}/admin/#/providers`);
  await page.locator('h1', { hasText: 'Providers' }).waitFor();
  await page.keyboard.press('Tab');
  const first = await focused(page);
  assert.is(first.text, 'Skip to content');
  assert.is.not(first.outline, 'none');
  await page.keyboard.press('Enter');
  assert.is((await focused(page)).id, 'main');
  await page.keyboard.press('Shift+Tab');
  // Backwards from the page lands in the nav (Sign out is its last control), with a visible ring.
  const back = await focused(page);
  assert.is(back.text, 'Sign out');
  assert.is.not(back.outline, 'none');
});

test('the confirm dialog takes focus, Escape cancels it and focus returns to the button', async () => {
  await page.click('a:has-text("OpenAI")');
  await page.locator('h1', { hasText: 'OpenAI' }).waitFor();
  await page.locator('button:has-text("Remove")').focus();
  await page.keyboard.press('Enter');
  await page.locator('dialog[open] h2', { hasText: 'Remove OpenAI?' }).waitFor();
  assert.is((await focused(page)).text, 'Cancel');
  await expectAxeClean(page, 'confirm dialog');
  await screenshots(page, '/tmp/shots/admin', 'confirm-dialog');
  await page.keyboard.press('Escape');
  await page.locator('dialog[open]').waitFor({ state: 'detached' });
  assert.is((await focused(page)).text, 'Remove');
  const still = await server.request('GET', '/api/v1/providers', { headers: owner.headers });
  assert.is(still.body.items.length, 1);
});

test('at 390 px the nav folds into a menu that opens, is navigable and closes with Escape', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const menu = page.locator('#menu-button');
  assert.ok(await menu.isVisible());
  assert.not.ok(await page.locator('#side-nav').isVisible());
  assert.is(await menu.getAttribute('aria-expanded'), 'false');
  await menu.click();
  await page.locator('#side-nav a:has-text("Faces")').waitFor({ state: 'visible' });
  assert.is(await menu.getAttribute('aria-expanded'), 'true');
  await screenshots(page, '/tmp/shots/admin', 'menu-open');
  await page.keyboard.press('Escape');
  await page.locator('#side-nav').waitFor({ state: 'hidden' });
  assert.is((await focused(page)).id, 'menu-button');
  await menu.click();
  await page.click('#side-nav a:has-text("Try it")');
  await page.locator('h1', { hasText: 'Try it' }).waitFor();
  await page.locator('#side-nav').waitFor({ state: 'hidden' });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('a network failure reads as a sentence, not "Failed to fetch"', async () => {
  await page.route('**/api/v1/**', (r) => r.abort('internetdisconnected'));
  await page.goto(`${server.url}/admin/#/providers`);
  await page.locator('text=Cannot reach the server. Check your connection and try again.').waitFor();
  assert.not.match(await page.content(), 'Failed to fetch');
  await page.unroute('**/api/v1/**');
});

test('a viewer reads providers and models but is offered nothing to change', async () => {
  const p = await b.open('providers');
  await signIn(p, viewer.email);
  await p.goto(`${server.url}/admin/#/providers`);
  await p.locator('a', { hasText: 'OpenAI' }).click();
  await p.locator('#models td code').first().waitFor();
  for (const text of ['Test connection', 'Remove', 'Save', 'Connect a provider']) assert.is(await p.locator(`button:has-text("${text}")`).count(), 0, text);
  assert.is(await p.locator('#side-nav a:has-text("Get started")').count(), 0);
});

test('dark mode is axe-clean too', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${server.url}/admin/#/providers`);
  await page.reload();
  await page.locator('table.list').waitFor();
  await expectAxeClean(page, 'providers (dark)');
  await screenshots(page, '/tmp/shots/admin', 'providers-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  const errors = b.errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(e));
  assert.equal(errors, []);
});

test.run();
