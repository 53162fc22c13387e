/**
 * The bot settings editor in headless Chromium against the real server: edits in several groups saved as one
 * patch, a validation error shown at its field, publish problems linked to their fields, the draft/published
 * diff, restoring a version, and a 409 when someone else changed the bot meanwhile.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin-bot';
const shot = (p: Page, name: string) => screenshots(p, SHOTS, name, { clearToasts: true });
let server: TestServer;
let fake: FakeServer;
let owner: TestSession;
let b: AdminBrowser;
let page: Page;
let botId: string;
let providerId: string;

const bot = async () => (await server.request('GET', `/api/v1/bots/${botId}`, { headers: owner.headers })).body;
const setting = (path: string) => page.locator(`.setting[data-path="${path}"]`);
const input = (path: string) => page.locator(`[name="${path}"]`);
const save = async () => {
  await page.click('.save-bar button[type="submit"]');
  await page.locator('.save-bar').waitFor({ state: 'detached' });
};

test.before(async () => {
  [server, fake] = await Promise.all([startTestServer(), startFakeOpenAI()]) as [TestServer, FakeServer];
  owner = await setupOwner(server, { workspaceName: 'Acme' });
  const provider = await server.request('POST', '/api/v1/providers', { body: { kind: 'openai', name: 'Fake OpenAI', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, headers: owner.headers });
  providerId = provider.body.id;
  const created = await server.request('POST', '/api/v1/bots', { body: { name: 'Support desk', templateId: 'customer-support' }, headers: owner.headers });
  botId = created.body.id;
  b = await startAdminBrowser(server);
  page = await b.open();
  await signIn(page, owner.email);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await fake?.close();
});

test('settings in several groups are edited and saved as one change', async () => {
  await page.goto(`${server.url}/admin/#/bots/${botId}`);
  await page.locator('section.bot h1', { hasText: 'Support desk' }).waitFor();
  await input('identity.agentName').fill('Maya');
  await input('identity.businessName').fill('Acme Shoes');
  assert.match(await setting('identity.agentName').textContent() ?? '', 'edited');
  await page.click('.groups a:has-text("Brain")');
  await page.locator('#group-title', { hasText: 'Brain' }).waitFor();
  // The model list comes from the connection: the recommended model is marked.
  await page.locator('select[name="brain.model"] option', { hasText: 'gpt-4o-mini' }).first().waitFor({ state: 'attached' });
  await input('brain.maxOutputTokens').fill('2048');
  assert.match(await setting('brain.maxOutputTokens').textContent() ?? '', '256 to 128000');
  await page.click('.groups a:has-text("Behaviour")');
  await input('behavior.handoff.enabled').check();
  await page.click('.groups a:has-text("Face & appearance")');
  await input('appearance.theme.accent').fill('#0e7c66');
  const bar = await page.locator('.save-bar').textContent() ?? '';
  assert.match(bar, /\d unsaved changes/, bar);
  await save();
  const d = (await bot()).draft;
  assert.is(d.identity.agentName, 'Maya');
  assert.is(d.identity.businessName, 'Acme Shoes');
  assert.is(d.brain.maxOutputTokens, 2048);
  assert.is(d.behavior.handoff.enabled, true);
  assert.is(d.appearance.theme.accent, '#0e7c66');
  assert.is(d.brain.connectionId, providerId, 'untouched settings stay');
  await shot(page, 'settings-appearance');
});

test('a value out of range is refused by the API and its message is shown at the field', async () => {
  await page.click('.groups a:has-text("Brain")');
  await input('brain.maxOutputTokens').fill('100');
  await page.click('.save-bar button[type="submit"]');
  const error = setting('brain.maxOutputTokens').locator('.field-error');
  await error.waitFor();
  assert.match(await error.textContent() ?? '', /256/);
  assert.is(await input('brain.maxOutputTokens').getAttribute('aria-invalid'), 'true');
  assert.is(await page.locator('.groups a.active .dot.bad').count(), 1, 'the group is marked as having an error');
  assert.is((await bot()).draft.brain.maxOutputTokens, 2048, 'nothing was saved');
  await shot(page, 'field-error');
  await input('brain.maxOutputTokens').fill('4096');
  await save();
});

test('publishing a draft with problems lists them, and each opens its field', async () => {
  await input('brain.model').selectOption('');
  await save();
  await page.click('button.publish');
  const item = page.locator('ul.problems li', { hasText: 'brain.model' });
  await item.waitFor();
  await page.click('.groups a:has-text("Welcome")');
  await item.locator('button').click();
  await page.locator('#group-title', { hasText: 'Brain' }).waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'brain.model');
  await shot(page, 'publish-problems');
  await input('brain.model').selectOption('gpt-4o-mini');
  await save();
  await page.click('button.publish');
  await page.locator('.facts', { hasText: 'version 1' }).waitFor();
  assert.is(await page.locator('ul.problems').count(), 0);
  assert.is((await bot()).publishedVersion, 1);
  // Nothing changed since: the button is off and says why, next to it.
  await page.locator('#nothing-to-publish', { hasText: 'Nothing to publish' }).waitFor();
  assert.ok(await page.locator('button.publish').isDisabled(), 'publish is off while the draft is the live version');
  assert.is(await page.locator('button.publish').getAttribute('aria-describedby'), 'nothing-to-publish');
  await shot(page, 'nothing-to-publish');
});

test('the changes tab shows what the draft changes against the published version', async () => {
  await page.click('.groups a:has-text("Welcome")');
  await input('welcome.message').fill('Hello from {{agent.name}} at {{business.name}}!');
  await save();
  // The header says the draft now differs from what visitors see, and leads to the comparison.
  assert.ok(await page.locator('button.publish').isEnabled(), 'a saved change can be published');
  assert.is(await page.locator('#nothing-to-publish').count(), 0);
  await page.click('.bot-head a:has-text("1 unpublished change")');
  const row = page.locator('table.diff tr', { hasText: 'welcome.message' });
  await row.waitFor();
  assert.match(await row.locator('td.after').textContent() ?? '', 'Hello from {{agent.name}}');
  await shot(page, 'changes');
  await expectAxeClean(page, 'the changes tab');
});

test('a version is restored into the draft', async () => {
  await page.click('.tabs a:has-text("Versions")');
  const v1 = page.locator('.versions li', { hasText: 'Version 1' });
  await v1.waitFor();
  await v1.locator('button', { hasText: 'Compare with draft' }).click();
  await v1.locator('table.diff', { hasText: 'welcome.message' }).waitFor();
  await shot(page, 'versions');
  await v1.locator('button', { hasText: 'Restore' }).click();
  await page.click('dialog button:has-text("Restore into draft")');
  await page.locator('.toast', { hasText: 'Version 1 is now the draft' }).waitFor();
  const d = (await bot()).draft;
  assert.not.match(d.welcome.message, 'Hello from');
});

test('a save after someone else changed the bot shows their change where the person clicked, and keeps or reloads on request', async () => {
  await page.click('.tabs a:has-text("Settings")');
  await page.click('.groups a:has-text("Identity")');
  await input('identity.role').fill('Shoe expert');
  await input('identity.agentName').fill('Sam');
  const current = await bot();
  const theirs = await server.request('PATCH', `/api/v1/bots/${botId}`, { body: { revision: current.revision, patch: { identity: { guardrails: 'Never discuss prices of competitors.' } } }, headers: owner.headers });
  assert.is(theirs.status, 200);
  // Save from the bottom of the page, far below where the notice is drawn.
  await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
  await page.click('.save-bar button[type="submit"]');
  const box = page.locator('.conflict');
  await box.waitFor();
  assert.match(await box.textContent() ?? '', 'identity.guardrails');
  assert.match(await box.textContent() ?? '', 'Never discuss prices');
  // The notice is on screen and has the keyboard; the save bar says the save failed and what to do.
  await page.waitForFunction(() => { const r = document.querySelector('.conflict')!.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; });
  assert.ok(await box.evaluate((el) => el === document.activeElement), 'the notice has the focus');
  const bar = page.locator('.save-bar');
  assert.not.match(await bar.textContent() ?? '', 'unsaved changes');
  assert.match(await bar.textContent() ?? '', 'Not saved: someone else changed this bot');
  assert.ok(await bar.locator('button', { hasText: 'Reload their version' }).isVisible());
  await page.screenshot({ path: `${SHOTS}/conflict-viewport.png` });
  await shot(page, 'conflict');
  await bar.locator('button', { hasText: 'Keep my 2 edits on top' }).click();
  await box.waitFor({ state: 'detached' });
  await save();
  const d = (await bot()).draft;
  assert.is(d.identity.role, 'Shoe expert');
  assert.is(d.identity.agentName, 'Sam');
  assert.is(d.identity.guardrails, 'Never discuss prices of competitors.');
});

test('a refused allowed site names its line as the person sees it, and the error goes when the line is fixed', async () => {
  await page.click('.groups a:has-text("Security")');
  const origins = input('security.allowedOrigins');
  await origins.fill('https://shop.example.com\n\nftp://bad site\nhttps://b.example.com');
  await page.click('.save-bar button[type="submit"]');
  const error = setting('security.allowedOrigins').locator('.field-error');
  await error.waitFor();
  assert.match(await error.textContent() ?? '', 'Line 3 ("ftp://bad site"): must be *, an origin');
  await shot(page, 'allowed-sites-error');
  await origins.fill('https://shop.example.com\nhttps://b.example.com');
  assert.is(await error.count(), 0, 'editing the list clears its error');
  await save();
  assert.equal((await bot()).draft.security.allowedOrigins, ['https://shop.example.com', 'https://b.example.com']);
  await origins.fill('');
  await save();
});

test('the editor is clean for axe, and the preview frames the real widget with the draft', async () => {
  await page.locator('iframe.preview-frame').waitFor();
  const src = await page.locator('iframe.preview-frame').getAttribute('src') ?? '';
  assert.match(src, `/chat/${botId}`);
  assert.match(src, '#preview=bpv_');
  const frame = page.frameLocator('iframe.preview-frame');
  await frame.locator('[data-service-chat]').waitFor({ state: 'attached' });
  await shot(page, 'settings-identity');
  // Every group, drawn with its conditional parts on where a setting shows them (voice engine, launcher, hours).
  for (const title of ['Identity', 'Welcome', 'Brain', 'Knowledge', 'Tools', 'Voice', 'Vision', 'Face & appearance', 'Texts & greeting', 'Behaviour', 'Security']) {
    await page.click(`.groups a:has-text("${title}")`);
    await page.locator('#group-title', { hasText: title }).waitFor();
    await expectAxeClean(page, `the ${title} settings`, { exclude: ['iframe.preview-frame'] });
  }
  await shot(page, 'settings-security');
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors, []);
});

test.run();
