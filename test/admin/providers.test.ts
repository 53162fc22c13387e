/**
 * Providers, try-it, the shareable chat page and faces in the panel, against the fake OpenAI and speech
 * providers: connect (key checked), rename, replace a key (refused at the field), test, models, voices with a
 * playable sample; the try-it page in each layout, draft and published; /chat/<botId>. axe-clean, screenshots.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { startFakeSpeech, type FakeSpeech } from '../fakes/speech.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin';
let server: TestServer;
let fake: FakeOpenAI;
let speech: FakeSpeech;
let owner: TestSession;
let b: AdminBrowser;
let page: Page;
let botId: string;

test.before(async () => {
  [server, fake, speech] = await Promise.all([startTestServer(), startFakeOpenAI(), startFakeSpeech()]) as [TestServer, FakeOpenAI, FakeSpeech];
  owner = await setupOwner(server, { workspaceName: 'Acme' });
  b = await startAdminBrowser(server);
  page = await b.open('providers');
  await signIn(page, owner.email);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await Promise.all([fake?.close(), speech?.close()]);
});

test('with nothing connected the providers page offers the catalog', async () => {
  await page.locator('h2', { hasText: 'Connect your first provider' }).waitFor();
  await expectAxeClean(page, 'providers (empty)');
  await screenshots(page, SHOTS, 'providers-empty');
});

test('OpenAI connects at another address, and its page lists models', async () => {
  await page.click('button:has-text("Connect OpenAI")');
  const form = page.locator('form[name="connect"]');
  await form.locator('button:has-text("Use a different address")').click();
  await form.locator('input[name="baseUrl"]').fill(fake.baseUrl);
  await form.locator('input[name="apiKey"]').fill(fake.apiKey);
  await form.locator('button[type="submit"]').click();
  await page.locator('#models td code', { hasText: 'gpt-4o-mini' }).first().waitFor();
  assert.match(page.url(), /#\/providers\/prov_|#\/providers\/\w+/);
  await page.locator('#voices h3').first().waitFor();
  await expectAxeClean(page, 'provider page');
  await screenshots(page, SHOTS, 'provider-openai');
});

test('renaming saves, a wrong replacement key is refused at its field, and the test says the key works', async () => {
  const form = page.locator('form[name="edit-connection"]');
  await form.locator('input[name="name"]').fill('OpenAI (test)');
  await form.locator('button[type="submit"]').click();
  await page.locator('.toast', { hasText: 'Saved' }).waitFor();
  await page.locator('h1', { hasText: 'OpenAI (test)' }).waitFor();
  await form.locator('input[name="apiKey"]').fill('sk-wrong');
  await form.locator('button[type="submit"]').click();
  await form.locator('.field-error', { hasText: 'refused this key' }).waitFor();
  await page.click('button:has-text("Test connection")');
  await page.locator('p.notice[role="status"]').waitFor();
});

test('a speech provider lists voices, and a voice sample plays from the API', async () => {
  await page.goto(`${server.url}/admin/#/providers`);
  await page.click('button:has-text("Connect a provider")');
  await page.click('button:has-text("Connect Speech provider")');
  const form = page.locator('form[name="connect"]');
  await form.locator('button:has-text("Use a different address")').click();
  await form.locator('input[name="baseUrl"]').fill(speech.baseUrl);
  await form.locator('input[name="apiKey"]').fill(speech.apiKey);
  await form.locator('button[type="submit"]').click();
  await page.locator('#voices h3', { hasText: 'Rachel' }).waitFor();
  await page.click('button[aria-label="Play a sample of Rachel"]');
  const src = await page.locator('#voices audio').getAttribute('src');
  const sample = await page.evaluate(async (u) => { const r = await fetch(u!); return { status: r.status, type: r.headers.get('content-type'), size: (await r.arrayBuffer()).byteLength }; }, src);
  assert.is(sample.status, 200);
  assert.match(sample.type ?? '', /^audio\//);
  assert.ok(sample.size > 0, `sample bytes ${sample.size}`);
  await screenshots(page, SHOTS, 'provider-speech');
});

test('try-it shows the draft with a preview token before publishing, then the published bot in each layout', async () => {
  const conns = await server.request('GET', '/api/v1/providers', { headers: owner.headers });
  const conn = conns.body.items.find((c: any) => c.kind === 'openai');
  const bot = await server.request('POST', '/api/v1/bots', { body: { name: 'Helper', templateId: 'blank' }, headers: owner.headers });
  botId = bot.body.id;
  await server.request('PATCH', `/api/v1/bots/${botId}`, { body: { revision: bot.body.revision, patch: { brain: { connectionId: conn.id, model: 'gpt-4o-mini' } } }, headers: owner.headers });
  await page.goto(`${server.url}/admin/#/try/${botId}`);
  const frame = page.locator('iframe.try-frame');
  await frame.waitFor();
  assert.match(await frame.getAttribute('src') ?? '', /#preview=/);
  fake.script({ text: 'Draft here.' });
  const chat = page.frameLocator('iframe.try-frame');
  await chat.locator('.cp textarea').fill('Hello?');
  await chat.locator('.cp textarea').press('Enter');
  await chat.locator('.m.assistant[data-role="assistant"]', { hasText: 'Draft here.' }).waitFor();

  const current = await server.request('GET', `/api/v1/bots/${botId}`, { headers: owner.headers });
  assert.is((await server.request('POST', `/api/v1/bots/${botId}/publish`, { body: { revision: current.body.revision }, headers: owner.headers })).status, 200);
  await page.reload();
  await page.locator('#share code', { hasText: `/chat/${botId}` }).waitFor();
  assert.not.match(await frame.getAttribute('src') ?? '', /preview/);
  for (const layout of ['panel', 'drawer', 'floating']) {
    await page.selectOption('select[name="layout"]', layout);
    await page.waitForFunction((l) => document.querySelector('iframe.try-frame')?.getAttribute('src')?.includes(`layout=${l}`), layout);
    await chat.locator('.w:not([hidden])').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/try-${layout}-desktop.png` });
  }
  await expectAxeClean(page, 'try-it', { exclude: ['iframe'] });
  await screenshots(page, SHOTS, 'try-floating');
});

test('the shareable link is a full-page chat with the published bot, and an unknown bot says so', async () => {
  const p = await b.open();
  await p.goto(`${server.url}/chat/${botId}`);
  fake.script({ text: 'Published here.' });
  await p.locator('.cp textarea').fill('Hi');
  await p.locator('.cp textarea').press('Enter');
  await p.locator('.m.assistant[data-role="assistant"]', { hasText: 'Published here.' }).waitFor();
  assert.is(await p.title(), 'Chat with Ava');
  await screenshots(p, SHOTS, 'chat-link');
  await p.goto(`${server.url}/chat/bot_nope`);
  await p.locator('#problem', { hasText: 'not available' }).waitFor();
});

test('the faces page explains faces and lists none yet', async () => {
  await page.goto(`${server.url}/admin/#/faces`);
  await page.locator('h2', { hasText: 'No custom faces yet' }).waitFor();
  await page.locator('#add-face form, #add-face .notice').first().waitFor();
  await expectAxeClean(page, 'faces');
  await screenshots(page, SHOTS, 'faces');
  assert.equal(b.errors, []);
});

test('on a server without ALLOW_PRIVATE_NETWORK a local address is refused at the address field, saying how to allow it', async () => {
  const strict = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK: 'false' } });
  const sb = await startAdminBrowser(strict);
  try {
    const admin = await setupOwner(strict, { workspaceName: 'Strict' });
    const p = await sb.open('providers');
    await signIn(p, admin.email);
    await p.click('button:has-text("Connect OpenAI-compatible server")');
    const form = p.locator('form[name="connect"]');
    await form.locator('input[name="baseUrl"]').fill(fake.baseUrl);
    await form.locator('button[type="submit"]').click();
    const err = form.locator('.has-error .field-error');
    await err.waitFor();
    assert.match(await err.textContent() ?? '', 'ALLOW_PRIVATE_NETWORK=true');
    assert.is(await form.locator('input[name="baseUrl"]').getAttribute('aria-invalid'), 'true');
    await screenshots(p, SHOTS, 'provider-private-refused');
  } finally {
    await sb.close();
    await strict.stop();
  }
});

test.run();
