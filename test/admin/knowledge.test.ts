import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import type { Page } from 'playwright-core';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { addMember, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeSite, type FakeSite } from '../knowledge/fake-site.js';
import { recordGap } from '../../src/knowledge/gaps.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin-build';
let w: { server: TestServer; owner: TestSession; site: FakeSite; openai: FakeServer };
let viewer: TestSession;
let b: AdminBrowser;
let page: Page;

test.before(async () => {
  const [server, site, openai] = await Promise.all([startTestServer(), startFakeSite(), startFakeOpenAI()]);
  const owner = await setupOwner(server);
  w = { server, owner, site, openai };
  // Connected as a person would (the key is checked against the fake); the oldest OpenAI connection embeds.
  const conn = await server.request('POST', '/api/v1/providers', { body: { kind: 'openai', name: 'Fake OpenAI', apiKey: openai.apiKey, baseUrl: openai.baseUrl }, headers: owner.headers });
  assert.is(conn.status, 201, JSON.stringify(conn.body));
  viewer = await addMember(w.server, w.owner, 'viewer', { name: 'Vera Viewer' });
  b = await startAdminBrowser(w.server);
  page = await b.open('knowledge');
  await signIn(page, w.owner.email);
});
test.after(async () => {
  await b?.close();
  await w?.server.stop();
  await w?.site.close();
  await w?.openai.close();
});

test('an empty knowledge base says what to add, and the page is accessible', async () => {
  await page.locator('.empty-state', { hasText: 'No knowledge yet' }).waitFor();
  await expectAxeClean(page, 'knowledge (empty)');
  await screenshots(page, SHOTS, 'knowledge-empty');
});

test('a website added to crawl shows its progress while it is read, then its documents', async () => {
  w.site.hold();
  // Keyboard only: the kinds are radio buttons (arrows move), then Tab through the fields.
  await page.focus('form[name="add-source"] input[value="page"]');
  await page.keyboard.press('ArrowRight');
  assert.ok(await page.isChecked('form[name="add-source"] input[value="crawl"]'));
  await page.keyboard.press('Tab');
  await page.keyboard.type(`${w.site.url}/`);
  assert.is(await page.inputValue('form[name="add-source"] input[name="url"]'), `${w.site.url}/`);
  await page.fill('form[name="add-source"] input[name="maxDepth"]', '1');
  await page.click('form[name="add-source"] button[type="submit"]');
  const row = page.locator('.source').first();
  // The site answers nothing yet: the source is shown as being indexed, with a progress bar.
  await row.locator('[role="progressbar"]').waitFor();
  assert.match(await row.getAttribute('data-status') ?? '', /queued|indexing/);
  await screenshots(page, SHOTS, 'knowledge-indexing');
  w.site.release();
  await page.locator('.source[data-status="ready"]').waitFor();
  assert.match(await row.locator('.counts').textContent() ?? '', /^4 documents/);
  assert.is(await row.locator('[role="progressbar"]').count(), 0);

  await row.locator('a:has-text("Documents")').click();
  await page.locator('table.documents').waitFor();
  const text = await page.locator('table.documents').textContent() ?? '';
  for (const t of ['Growing tomatoes', 'Making compost', 'About us']) assert.match(text, t);
  await expectAxeClean(page, 'knowledge source documents');
  await screenshots(page, SHOTS, 'knowledge-documents');
  await page.click('a.back');
});

test('a text source is added, reindexed and deleted after a confirmation', async () => {
  await page.click('button:has-text("Add a source")');
  await page.check('form[name="add-source"] input[value="text"]');
  await page.fill('form[name="add-source"] input[name="name"]', 'Gift cards');
  await page.fill('form[name="add-source"] textarea[name="text"]', 'Gift cards never expire and can be used online or in the shop.');
  await page.click('form[name="add-source"] button[type="submit"]');
  const row = page.locator('.source', { hasText: 'Gift cards' });
  await page.locator('.source[data-status="ready"]', { hasText: 'Gift cards' }).waitFor();
  await Promise.all([page.waitForResponse((r) => r.url().endsWith('/reindex')), row.locator('button:has-text("Reindex")').click()]);
  await page.locator('.source[data-status="ready"]', { hasText: 'Gift cards' }).waitFor();
  // Nothing is deleted until the question is answered: Escape keeps it, the dialog's Delete removes it.
  await row.locator('button:has-text("Delete")').click();
  assert.match(await page.locator('dialog[open]').textContent() ?? '', 'Delete “Gift cards”?');
  await page.keyboard.press('Escape');
  await page.locator('dialog[open]').waitFor({ state: 'detached' });
  assert.is(await row.count(), 1);
  await row.locator('button:has-text("Delete")').click();
  await page.click('dialog[open] button:has-text("Delete")');
  await row.waitFor({ state: 'detached' });
  const left = (await w.server.request('GET', '/api/v1/knowledge', { headers: w.owner.headers })).body.items;
  assert.equal(left.map((s: any) => s.kind), ['crawl']);
});

test('a text source without a name is named by its first line, cited by it in search, and counts "1 passage"', async () => {
  await page.click('button:has-text("Add a source")');
  await page.check('form[name="add-source"] input[value="text"]');
  await page.fill('form[name="add-source"] textarea[name="text"]', 'Store hours\nWe are open from nine to five on weekdays, and closed on public holidays.');
  await page.click('form[name="add-source"] button[type="submit"]');
  const row = page.locator('.source[data-status="ready"]', { hasText: 'Store hours' });
  await row.waitFor();
  assert.is(await row.locator('.counts').textContent(), '1 document · 1 passage');
  const found = await w.server.request('POST', '/api/v1/knowledge/search', { body: { query: 'open weekdays public holidays' }, headers: w.owner.headers });
  assert.is(found.body.results.find((r: { excerpt: string }) => r.excerpt.includes('nine to five'))?.title, 'Store hours', 'cited by its first line, not "Untitled"');
  await page.click('a.tab:has-text("Search playground")');
  await page.fill('form[name="search"] input[name="query"]', 'open weekdays public holidays');
  await page.click('form[name="search"] button[type="submit"]');
  await page.locator('.search-results .result', { hasText: 'Store hours' }).first().waitFor();
  assert.is(await page.locator('.search-results', { hasText: 'Untitled' }).count(), 0);
  await screenshots(page, SHOTS, 'knowledge-text-title');
  await page.click('a.tab:has-text("Sources")');
});

test('a named text source is cited by the name its owner gave it', async () => {
  const made = await w.server.request('POST', '/api/v1/knowledge', { body: { kind: 'text', name: 'Delivery promise', text: 'Parcels leave the warehouse within two working days of the order.' }, headers: w.owner.headers });
  assert.is(made.status, 201);
  await until(async () => (await w.server.request('GET', '/api/v1/knowledge', { headers: w.owner.headers })).body.items.find((x: { id: string }) => x.id === made.body.id)?.status === 'ready', { timeout: 15_000, interval: 50, message: 'the text source indexed (ready)' });
  const found = await w.server.request('POST', '/api/v1/knowledge/search', { body: { query: 'parcels leave warehouse working days' }, headers: w.owner.headers });
  assert.is(found.body.results.find((r: { excerpt: string }) => r.excerpt.includes('two working days'))?.title, 'Delivery promise');
});

test('a Markdown file is uploaded as it is and indexed', async () => {
  await page.click('button:has-text("Add a source")');
  await page.check('form[name="add-source"] input[value="file"]');
  await page.setInputFiles('form[name="add-source"] input[name="file"]', { name: 'returns.md', mimeType: 'text/markdown', buffer: Buffer.from('# Returns\n\nUnopened seed packets can be returned within thirty days.\n') });
  await page.click('form[name="add-source"] button[type="submit"]');
  const row = page.locator('.source[data-status="ready"]', { hasText: 'returns.md' });
  await row.waitFor();
  assert.match(await row.locator('.counts').textContent() ?? '', /^1 document/);
});

test('a file that cannot be read shows as failed, with the reason and what to do: retry or delete it', async () => {
  await page.click('button:has-text("Add a source")');
  await page.check('form[name="add-source"] input[value="file"]');
  // A PDF header and nothing a PDF reader can use (a download cut short, a file renamed to .pdf).
  await page.setInputFiles('form[name="add-source"] input[name="file"]', { name: 'price-list.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage, no xref, no pages\n') });
  await page.click('form[name="add-source"] button[type="submit"]');
  const row = page.locator('.source[data-status="failed"]', { hasText: 'price-list.pdf' });
  // A PDF is read in a child process of its own at a lower priority (workers/process-lane.ts): on a machine busy
  // with other work (CI running test files side by side) its start alone can take more than the default 10 s.
  await row.waitFor({ timeout: 30_000 });
  const said = (await row.locator('p.error').textContent()) ?? '';
  assert.match(said, /^Indexing failed: \S.{5,}\./, `the reason is given: ${said}`);
  assert.match(said, /Reindex/, `retrying is offered: ${said}`);
  assert.match(said, /[Dd]elete/, `removing it is offered: ${said}`);
  assert.not.match(said, /Indexed|indexed just now/, said);
  assert.is(await row.locator('.counts').textContent(), '0 documents · 0 passages');
  await row.locator('button', { hasText: 'Reindex' }).waitFor();
  await screenshots(page, SHOTS, 'knowledge-failed-file');
  // Its own page says the same, with the same two ways out.
  await row.locator('a', { hasText: 'Documents' }).click();
  await page.locator('.row-card p.error', { hasText: 'Indexing failed:' }).waitFor();
  await page.locator('.page-header button, header button', { hasText: 'Reindex' }).first().waitFor();
  await page.goBack();
  await row.locator('button', { hasText: 'Delete' }).click();
  await page.locator('dialog button', { hasText: 'Delete' }).click();
  await row.waitFor({ state: 'detached' });
});

test('the search playground shows what the agent would find, with scores and excerpts', async () => {
  await page.click('a.tab:has-text("Search playground")');
  await page.fill('form[name="search"] input[name="query"]', 'how much sunlight do tomatoes need');
  await page.click('form[name="search"] button[type="submit"]');
  const first = page.locator('.search-results .result').first();
  await first.waitFor();
  assert.match(await first.textContent() ?? '', 'Growing tomatoes');
  assert.match(await first.locator('.excerpt').textContent() ?? '', 'eight hours of direct sunlight');
  assert.match(await first.locator('.score').textContent() ?? '', /score \d\.\d{3}/);
  assert.match(await page.locator('.verdict').textContent() ?? '', 'would answer from these passages');
  await expectAxeClean(page, 'knowledge search');
  await screenshots(page, SHOTS, 'knowledge-search');
});

test('unanswered questions and the embedding settings have their own tabs', async () => {
  await page.click('a.tab:has-text("Unanswered questions")');
  await page.locator('.empty-state', { hasText: 'No unanswered questions' }).waitFor();
  // Questions the agent searched for and did not find (recorded as the agent's knowledge hook does).
  for (const q of ['Do you ship to Canada?', 'do you ship to canada', 'Can I pay by invoice?']) await recordGap(w.server.app, w.owner.workspaceId, q, { botId: null });
  await page.reload();
  await page.locator('table.gaps tbody tr').nth(1).waitFor();
  const gaps = await page.locator('table.gaps tbody tr').allTextContents();
  assert.is(gaps.length, 2);
  assert.ok(gaps.some((g) => /ship to canada.*2/i.test(g)), gaps.join(' | '));
  await screenshots(page, SHOTS, 'knowledge-gaps');
  await page.click('a.tab:has-text("Settings")');
  await page.locator('form[name="knowledge-settings"]').waitFor();
  assert.match(await page.locator('form[name="knowledge-settings"]').textContent() ?? '', 'Fake OpenAI');
  // Another connection: the model named for the first one does not carry over, and the model named is checked
  // with the provider before it is saved.
  const headers = w.owner.headers;
  const first = (await w.server.request('GET', '/api/v1/providers', { headers })).body.items[0].id;
  const second = (await w.server.request('POST', '/api/v1/providers', { body: { kind: 'openai', name: 'Second OpenAI', apiKey: w.openai.apiKey, baseUrl: w.openai.baseUrl }, headers })).body.id;
  assert.is((await w.server.request('PUT', '/api/v1/knowledge/settings', { body: { embedding: { connectionId: first, model: 'text-embedding-3-large' }, reindex: false }, headers })).status, 200);
  await page.reload();
  const form = page.locator('form[name="knowledge-settings"]');
  assert.is(await form.locator('input[name="model"]').inputValue(), 'text-embedding-3-large');
  await form.locator('input[name="reindex"]').uncheck();
  await form.locator('select[name="connection"]').selectOption(second);
  assert.is(await form.locator('input[name="model"]').inputValue(), '', 'the first connection\'s model does not carry over');
  await form.locator('input[name="model"]').fill('text-embedding-3-small');
  const before = w.openai.requests.length;
  await form.locator('button[type="submit"]').click();
  await page.locator('form[name="knowledge-settings"]', { hasText: 'Second OpenAI, text-embedding-3-small' }).waitFor();
  assert.ok(w.openai.requests.slice(before).some((r) => r.path.endsWith('/embeddings') && (r.body as { model?: string }).model === 'text-embedding-3-small'), 'checked with the provider');
  await page.selectOption('form[name="knowledge-settings"] select[name="connection"]', '');
  await page.click('form[name="knowledge-settings"] button[type="submit"]');
  await page.locator('form[name="knowledge-settings"] .ok').waitFor();
  await page.locator('form[name="knowledge-settings"]', { hasText: 'Now: words only' }).waitFor();
  const s = await w.server.request('GET', '/api/v1/knowledge/settings', { headers: w.owner.headers });
  assert.equal(s.body.embedding, null);
  await expectAxeClean(page, 'knowledge settings');
  await screenshots(page, SHOTS, 'knowledge-settings');
});

test('a viewer reads sources and searches but is offered no changes', async () => {
  const v = await b.open('knowledge');
  await signIn(v, viewer.email);
  await v.locator('.source[data-status="ready"]').first().waitFor();
  assert.is(await v.locator('form[name="add-source"]').count(), 0);
  assert.is(await v.locator('.source button').count(), 0);
  await v.click('a.tab:has-text("Search playground")');
  await v.fill('form[name="search"] input[name="query"]', 'compost');
  await v.click('form[name="search"] button[type="submit"]');
  await v.locator('.search-results .result').first().waitFor();
  await v.click('a.tab:has-text("Settings")');
  await v.locator('text=Only admins change these settings.').waitFor();
  await expectAxeClean(v, 'knowledge (viewer)');
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors, []);
});

test.run();
