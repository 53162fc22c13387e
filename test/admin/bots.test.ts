import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

let server: TestServer;
let fake: FakeServer;
let owner: TestSession;
let b: AdminBrowser;
let page: Page;
let botId: string;

test.before(async () => {
  [server, fake] = await Promise.all([startTestServer(), startFakeOpenAI()]);
  owner = await setupOwner(server, { workspaceName: 'Acme' });
  b = await startAdminBrowser(server);
  page = await b.open();
  await signIn(page, owner.email);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await fake?.close();
});

test('a bot is created from a template and opens on its own page', async () => {
  await page.locator('text=No bots yet.').waitFor();
  await page.fill('form[name="create-bot"] input[name="name"]', 'Support desk');
  await page.selectOption('form[name="create-bot"] select[name="templateId"]', 'customer-support');
  await page.click('form[name="create-bot"] button[type="submit"]');
  await page.locator('section.bot h1', { hasText: 'Support desk' }).waitFor();
  botId = page.url().split('#/bots/')[1];
  const bot = await server.request('GET', `/api/v1/bots/${botId}`, { headers: owner.headers });
  assert.is(bot.body.name, 'Support desk');
  await page.click('.tabs a:has-text("Embed")');
  await page.locator('pre.snippet').first().waitFor();
  assert.match(await page.locator('pre.snippet').first().textContent() ?? '', `data-bot-id="${botId}"`);
});

test('publishing a draft that cannot work lists every problem the API names', async () => {
  await page.click('button:has-text("Publish draft")');
  await page.locator('ul.problems li').first().waitFor();
  const problems = await page.locator('ul.problems li').allTextContents();
  assert.ok(problems.some((p) => p.startsWith('brain.connectionId')), problems.join(' | '));
});

test('with a provider connected the draft publishes, and pause and resume change the status', async () => {
  const provider = await server.request('POST', '/api/v1/providers', { body: { kind: 'openai', name: 'Fake', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, headers: owner.headers });
  assert.is(provider.status, 201);
  const bot = await server.request('GET', `/api/v1/bots/${botId}`, { headers: owner.headers });
  const edited = await server.request('PATCH', `/api/v1/bots/${botId}`, { body: { revision: bot.body.revision, patch: { brain: { connectionId: provider.body.id, model: 'gpt-4o-mini' } } }, headers: owner.headers });
  assert.is(edited.status, 200);
  // The page still holds the old revision: the API's conflict message is shown until it reloads.
  await page.click('button:has-text("Publish draft")');
  await page.locator('section.bot .error').waitFor();
  await page.reload();
  await page.click('button:has-text("Publish draft")');
  await page.locator('.toast', { hasText: 'Published as version 1.' }).waitFor();
  assert.is(await page.locator('ul.problems').count(), 0);

  await page.click('button:has-text("Pause")');
  await page.click('dialog button:has-text("Pause bot")');
  await page.locator('.facts .badge.paused').waitFor();
  assert.is((await server.request('GET', `/api/v1/bots/${botId}`, { headers: owner.headers })).body.status, 'paused');
  await page.click('button:has-text("Resume")');
  await page.locator('.facts .badge.running').waitFor();
  await page.screenshot({ path: '/tmp/admin-bot.png', fullPage: true });
});

test('the bots list shows the new bot with its published version', async () => {
  await page.click('nav a:has-text("Bots")');
  const row = page.locator('table.bots tr', { hasText: 'Support desk' });
  await row.waitFor();
  assert.match(await row.textContent() ?? '', 'version 1');
  await row.locator('a').first().click();
  await page.locator('section.bot h1', { hasText: 'Support desk' }).waitFor();
});

test('the leads page offers the CSV download and an empty list', async () => {
  await page.click('nav a:has-text("Leads")');
  await page.locator('.empty-state', { hasText: 'No leads yet' }).waitFor();
  assert.is(await page.locator('a:has-text("Download CSV")').getAttribute('href'), '/api/v1/leads.csv');
  const csv = await page.evaluate(() => fetch('/api/v1/leads.csv').then(async (r) => ({ status: r.status, type: r.headers.get('content-type') })));
  assert.is(csv.status, 200, 'the session cookie is enough for the download');
  assert.match(csv.type ?? '', 'text/csv');
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors, []);
});

test.run();
