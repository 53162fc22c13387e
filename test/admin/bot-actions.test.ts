/**
 * One bot's actions in headless Chromium against the real server: pause and resume, duplicate, delete with
 * confirmation, the identity secret shown once, embed snippets with copy buttons, keyboard-only editing, the
 * page at 390 px, and a viewer's read-only view with no actions it cannot take.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { addMember, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin-bot';
const shot = (p: Page, name: string) => screenshots(p, SHOTS, name, { clearToasts: true });
let server: TestServer;
let fake: FakeServer;
let owner: TestSession;
let viewer: TestSession;
let b: AdminBrowser;
let page: Page;
let botId: string;

const api = async (method: string, path: string, body?: unknown) => (await server.request(method, `/api/v1${path}`, { body, headers: owner.headers })).body;

test.before(async () => {
  [server, fake] = await Promise.all([startTestServer(), startFakeOpenAI()]) as [TestServer, FakeServer];
  owner = await setupOwner(server, { workspaceName: 'Acme' });
  viewer = await addMember(server, owner, 'viewer', { email: 'vera@example.com', name: 'Vera Viewer' });
  await api('POST', '/providers', { kind: 'openai', name: 'Fake OpenAI', apiKey: fake.apiKey, baseUrl: fake.baseUrl });
  botId = (await api('POST', '/bots', { name: 'Sales', templateId: 'customer-support' })).id;
  await api('POST', `/bots/${botId}/publish`, {});
  b = await startAdminBrowser(server);
  page = await b.open();
  await signIn(page, owner.email);
  await page.goto(`${server.url}/admin/#/bots/${botId}`);
  await page.locator('section.bot h1', { hasText: 'Sales' }).waitFor();
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await fake?.close();
});

test('pausing says what visitors will see and asks first; pause and resume change the status shown and stored', async () => {
  await page.click('.bot-actions button:has-text("Pause")');
  const dialog = page.locator('dialog', { hasText: 'Pause Sales?' });
  await dialog.waitFor();
  // The offline text the bot's visitors will read (the template's, published), and that they cannot send messages.
  const offline = (await api('GET', `/bots/${botId}`)).published.config.texts.offline as string;
  assert.match(await dialog.textContent() ?? '', `your offline text ("${offline}")`);
  assert.match(await dialog.textContent() ?? '', 'cannot send messages');
  await shot(page, 'pause-confirm');
  await page.click('dialog button:has-text("Cancel")');
  await dialog.waitFor({ state: 'hidden' });
  assert.is((await api('GET', `/bots/${botId}`)).status, 'running', 'cancelled: still running');
  await page.click('.bot-actions button:has-text("Pause")');
  await page.click('dialog button:has-text("Pause bot")');
  await page.locator('.facts .badge.paused').waitFor();
  assert.is((await api('GET', `/bots/${botId}`)).status, 'paused');
  await page.click('.bot-actions button:has-text("Resume")');
  await page.locator('.facts .badge.running').waitFor();
  assert.is((await api('GET', `/bots/${botId}`)).status, 'running');
});

test('the identity secret is shown once with a copy button, and replacing it asks first', async () => {
  await page.click('.groups a:has-text("Security")');
  await page.click('button:has-text("Create identity secret")');
  const once = page.locator('.secret .once');
  await once.waitFor();
  const secret = (await once.locator('pre.snippet').textContent())?.trim() ?? '';
  assert.ok(secret.length >= 20, secret);
  assert.ok(await once.locator('button:has-text("Copy secret")').isVisible());
  assert.is((await api('GET', `/bots/${botId}`)).hasIdentitySecret, true);
  await shot(page, 'identity-secret');
  await page.click('button:has-text("Replace identity secret")');
  await page.locator('dialog', { hasText: 'Replace the identity secret?' }).waitFor();
  await page.click('dialog button:has-text("Cancel")');
  assert.is((await once.locator('pre.snippet').textContent())?.trim(), secret, 'cancelled: the secret shown is unchanged');
});

test('the embed tab offers every layout snippet with its own copy button', async () => {
  await page.click('.tabs a:has-text("Embed")');
  await page.locator('.embed pre.snippet').first().waitFor();
  const snippets = await page.locator('.embed pre.snippet').allTextContents();
  assert.ok(snippets.length >= 2, `${snippets.length} snippets`);
  for (const s of snippets) assert.match(s, `data-bot-id="${botId}"`);
  assert.is(await page.locator('.embed button:has-text("Copy")').count(), snippets.length);
  await page.locator('.embed button', { hasText: 'Copy snippet' }).click();
  await page.locator('.embed button', { hasText: 'Copied' }).waitFor();
  await expectAxeClean(page, 'the embed tab');
  await shot(page, 'embed');
});

test('a setting is changed and saved with the keyboard only', async () => {
  await page.click('.tabs a:has-text("Settings")');
  await page.locator('.groups a').first().focus();
  // Tab through the group list to Welcome, open it with Enter, then into its first field.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.locator('#group-title', { hasText: 'Welcome' }).waitFor();
  await page.locator('[name="welcome.message"]').focus();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('Welcome to Sales!');
  // Enter in a single-line field would submit; in the textarea the form is submitted from the save bar's button.
  await page.locator('.save-bar button[type="submit"]').focus();
  await page.keyboard.press('Enter');
  await page.locator('.save-bar').waitFor({ state: 'detached' });
  assert.is((await api('GET', `/bots/${botId}`)).draft.welcome.message, 'Welcome to Sales!');
});

test('the editor works at 390 px wide', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click('.groups a:has-text("Voice")');
  await page.locator('#group-title', { hasText: 'Voice' }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px`);
  // The shell's top bar (menu button and workspace name, admin/src/nav.tsx) is checked by the shell's own tests.
  await expectAxeClean(page, 'the voice settings at 390 px', { exclude: ['iframe.preview-frame'] });
  await page.locator('[name="voice.enabled"]').check();
  await page.locator('.save-bar').waitFor();
  await page.click('.save-bar button:has-text("Discard")');
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, 'voice');
});

test('duplicate makes a copy of the draft and opens it', async () => {
  await page.click('.bot-actions button:has-text("Duplicate")');
  await page.locator('section.bot h1', { hasText: 'Sales (copy)' }).waitFor();
  const copyId = page.url().split('#/bots/')[1].split('/')[0];
  assert.is.not(copyId, botId);
  const copy = await api('GET', `/bots/${copyId}`);
  assert.is(copy.draft.welcome.message, 'Welcome to Sales!');
  assert.is(copy.publishedVersion, null);
});

test('delete asks for confirmation, then removes the bot and returns to the list', async () => {
  const copyId = page.url().split('#/bots/')[1].split('/')[0];
  await page.click('.bot-actions button:has-text("Delete")');
  const dialog = page.locator('dialog', { hasText: 'Delete Sales (copy)?' });
  await dialog.waitFor();
  await shot(page, 'delete-confirm');
  await dialog.locator('button:has-text("Delete bot")').click();
  await page.waitForFunction(() => location.hash === '#/bots');
  const gone = await server.request('GET', `/api/v1/bots/${copyId}`, { headers: owner.headers });
  assert.is(gone.status, 404);
  assert.is((await api('GET', `/bots/${botId}`)).id, botId, 'the original stays');
});

test('the bots list shows each bot with its status and live version', async () => {
  await page.click('nav a:has-text("Bots")');
  const row = page.locator('table.bots tr', { hasText: 'Sales' });
  await row.waitFor();
  assert.match(await row.textContent() ?? '', 'version 1');
  assert.is(await row.locator('a', { hasText: 'Try it' }).getAttribute('href'), `#/try/${botId}`);
  await expectAxeClean(page, 'the bots list');
  await shot(page, 'bots-list');
});

test('a viewer reads the settings but sees no action it cannot take', async () => {
  const vpage = await b.open();
  await signIn(vpage, viewer.email);
  await vpage.goto(`${server.url}/admin/#/bots/${botId}/settings/security`);
  await vpage.locator('#group-title', { hasText: 'Security' }).waitFor();
  for (const text of ['Publish draft', 'Pause', 'Duplicate', 'Delete', 'Rename', 'Create identity secret', 'Replace identity secret']) {
    assert.is(await vpage.locator('section.bot button', { hasText: text }).count(), 0, `${text} is not offered`);
  }
  assert.ok(await vpage.locator('[name="security.rateLimits.messagesPerMinute"]').isDisabled());
  assert.match(await vpage.locator('.settings').textContent() ?? '', 'an admin can change them');
  await vpage.click('.tabs a:has-text("Versions")');
  await vpage.locator('.versions li').first().waitFor();
  assert.is(await vpage.locator('.versions button', { hasText: 'Restore' }).count(), 0);
  await expectAxeClean(vpage, "a viewer's versions tab");
  await shot(vpage, 'viewer-versions');
});

test('no page threw or broke the content security policy', () => {
  // The preview's chat socket is refused (403) after its bot is deleted, as any visitor's is.
  assert.equal(b.errors.filter((e) => !/widget\/v1\/chat\?.*Unexpected response code: 403/.test(e)), []);
});

test.run();
