/**
 * The first run as a new user meets it: an empty data folder, `/` leads to the panel, set up, connect a provider
 * (the fake as an OpenAI-compatible server), choose a model, create a bot from a template with a business name,
 * and get a reply on the try-it step; then the embed snippet is there to copy. axe-clean, screenshots.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Frame, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectAxeClean, screenshots } from './axe.js';
import { startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin';
let server: TestServer;
let fake: FakeOpenAI;
let b: AdminBrowser;
let page: Page;
let createdBot = '';

test.before(async () => {
  [server, fake] = await Promise.all([startTestServer(), startFakeOpenAI()]) as [TestServer, FakeOpenAI];
  b = await startAdminBrowser(server);
  page = await b.open();
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await fake?.close();
});

test('/ leads to the panel, which asks to set up the server', async () => {
  await page.goto(`${server.url}/`);
  assert.match(page.url(), /\/admin\/$/);
  await page.locator('form[name="setup"]').waitFor();
  await expectAxeClean(page, 'setup');
  await screenshots(page, SHOTS, 'setup');
});

test('after setup the guided path starts with a catalog of real providers', async () => {
  await page.fill('form[name="setup"] input[name="workspaceName"]', 'Acme');
  await page.fill('form[name="setup"] input[name="name"]', 'Olivia Owner');
  await page.fill('form[name="setup"] input[name="email"]', 'owner@example.com');
  await page.fill('form[name="setup"] input[name="password"]', 'correct horse battery');
  await page.click('form[name="setup"] button[type="submit"]');
  await page.locator('h1', { hasText: 'Set up your first bot' }).waitFor();
  assert.match(page.url(), /#\/start$/);
  const tiles = await page.locator('.catalog h3').allTextContents();
  for (const name of ['OpenAI', 'Google Gemini', 'OpenAI-compatible server']) assert.ok(tiles.includes(name), tiles.join(', '));
  await expectAxeClean(page, 'start: catalog');
  await screenshots(page, SHOTS, 'start-catalog');
});

test('a wrong key is refused at the key field, and local servers are explained', async () => {
  await page.click('button:has-text("Connect OpenAI-compatible server")');
  const form = page.locator('form[name="connect"]');
  assert.match(await form.textContent() ?? '', 'ALLOW_PRIVATE_NETWORK');
  await form.locator('input[name="baseUrl"]').fill(fake.baseUrl);
  await form.locator('input[name="apiKey"]').fill('wrong-key');
  await form.locator('button[type="submit"]').click();
  const err = form.locator('.field-error');
  await err.waitFor();
  assert.match(await err.textContent() ?? '', /refused this key/);
  assert.is(await form.locator('input[name="apiKey"]').getAttribute('aria-invalid'), 'true');
  await expectAxeClean(page, 'start: key refused');
  await screenshots(page, SHOTS, 'start-connect-error');
});

test('the right key connects, and the connection lists its models to choose from', async () => {
  const form = page.locator('form[name="connect"]');
  await form.locator('input[name="apiKey"]').fill(fake.apiKey);
  await form.locator('button[type="submit"]').click();
  await page.locator('select[name="model"]').waitFor();
  const options = await page.locator('select[name="model"] option').allTextContents();
  assert.ok(options.some((o) => o.startsWith('gpt-4o-mini')), options.join(', '));
  assert.not.ok(options.some((o) => o.includes('whisper') || o.includes('embedding')), 'only chat models are offered');
  await expectAxeClean(page, 'start: model and bot');
  await screenshots(page, SHOTS, 'start-create-bot');
});

test('a bot from a template with the business name (prefilled from the workspace) is published, and answers on the try-it step', async () => {
  await page.selectOption('select[name="model"]', 'gpt-4o-mini');
  await page.check('input[name="templateId"][value="customer-support"]');
  assert.is(await page.inputValue('input[name="businessName"]'), 'Acme', 'the business name starts from the workspace name');
  await page.fill('input[name="businessName"]', 'Acme Bikes');
  await page.click('form[name="create-bot"] button[type="submit"]');
  await page.locator('h1', { hasText: 'is ready' }).waitFor();
  const botId = page.url().split('#/start/bot/')[1]!;
  const chat = await chatFrame(page);
  const welcome = await chat.locator('.m.welcome').textContent();
  assert.is(welcome, "Hi! I'm Ava from Acme Bikes. What can I help you with?");
  fake.script({ text: 'We sell and repair bikes.' });
  await chat.fill('.cp textarea', 'What do you do?');
  await chat.press('.cp textarea', 'Enter');
  await chat.locator('.m.assistant[data-role="assistant"]', { hasText: 'We sell and repair bikes.' }).waitFor();
  const snippet = await page.locator('#embed pre.snippet').first().textContent();
  assert.match(snippet ?? '', `data-bot-id="${botId}"`);
  await expectAxeClean(page, 'start: try it', { exclude: ['iframe'] });
  await screenshots(page, SHOTS, 'start-try');
  assert.equal(b.errors, []);
  createdBot = botId;
});

test('with only a text provider, the Voice tab asks for nothing that fails and says to connect a voice provider', async () => {
  const failed: string[] = [];
  page.on('response', (r) => { if (r.status() >= 400 && r.url().includes('/api/v1/')) failed.push(`${r.status()} ${r.request().method()} ${r.url()}`); });
  await page.goto(`${server.url}/admin/#/bots/${createdBot}`);
  await page.click('.groups a:has-text("Voice")');
  await page.locator('#group-title', { hasText: 'Voice' }).waitFor();
  const notice = page.locator('.no-voice-provider');
  await notice.waitFor();
  assert.match(await notice.textContent() ?? '', /connect OpenAI, Google Gemini\s+or a speech provider/);
  assert.is(await notice.locator('a[href="#/providers"]').count(), 1);
  // The default engine (realtime) falls back to the brain's connection, which has no voices: said at the field.
  const voiceField = page.locator('[data-path="voice.realtime.voice"]');
  assert.match(await voiceField.textContent() ?? '', /has no voices: connect a voice provider/);
  await page.locator('[name="voice.enabled"]').check();
  await page.locator('.save-bar').waitFor();
  await page.click('.save-bar button:has-text("Discard")');
  await page.waitForLoadState('networkidle');
  assert.equal(failed, [], 'no request of the Voice tab failed');
  await expectAxeClean(page, 'voice without a voice provider', { exclude: ['iframe'] });
  await screenshots(page, SHOTS, 'voice-no-provider');
  assert.equal(b.errors, []);
});

test('sign-in says what to do about a forgotten password: the recovery command, with the typed e-mail', async () => {
  const fresh = await b.open();
  await fresh.locator('form[name="login"]').waitFor();
  await fresh.fill('form[name="login"] input[name="email"]', 'owner@example.com');
  await fresh.click('summary:has-text("Forgot your password?")');
  const command = await fresh.locator('.forgot pre').textContent();
  assert.is(command, 'npm run cli -- reset-password --email owner@example.com');
  await expectAxeClean(fresh, 'sign-in with the forgotten-password hint');
  await screenshots(fresh, SHOTS, 'sign-in-forgot');
  await fresh.close();
});

/**
 * Layout faults a person sees: a tab row that scrolls (a scrollbar under the tabs) and radios or checkboxes that
 * sit off their label's line or are drawn as tall as a text field. Measured in the page, at both widths.
 */
async function layoutProblems(p: Page): Promise<string[]> {
  // A string, so the test runner's transform adds no helpers the page does not have.
  return p.evaluate(`(() => {
    const out = [];
    const name = function (e) { return e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).trim().split(/\\s+/).join('.') : ''); };
    for (const r of document.querySelectorAll('nav.tabs, .groups ul')) {
      if (!r.offsetParent) continue;
      if (r.scrollHeight > r.clientHeight) out.push(name(r) + ' scrolls vertically (' + r.scrollHeight + ' > ' + r.clientHeight + ')');
      const cs = getComputedStyle(r);
      const bar = r.offsetHeight - r.clientHeight - parseFloat(cs.borderTopWidth) - parseFloat(cs.borderBottomWidth);
      if (bar > 0 && r.scrollWidth <= r.clientWidth) out.push(name(r) + ' shows a scrollbar (' + bar + 'px) with nothing to scroll');
    }
    for (const input of document.querySelectorAll('input[type="checkbox"]:not(.switch), input[type="radio"]')) {
      const box = input.getBoundingClientRect();
      if (!box.width || getComputedStyle(input).opacity === '0') continue; // hidden inside a drawn control (.segmented)
      if (box.height > 22 || box.width > 22) out.push(input.getAttribute('name') + ': drawn ' + box.width + 'x' + box.height + 'px');
      // The text next to it: the first text of its label (or row), measured as one line.
      const holder = input.closest('label, .row') || input.parentElement;
      const walker = document.createTreeWalker(holder, NodeFilter.SHOW_TEXT, { acceptNode: function (n) { return n.textContent.trim() ? 1 : 2; } });
      const text = walker.nextNode();
      if (!text) continue;
      const range = document.createRange();
      range.selectNodeContents(text);
      const line = range.getClientRects()[0];
      if (!line) continue;
      const off = Math.abs((box.top + box.bottom) / 2 - (line.top + line.bottom) / 2);
      if (off > 3) out.push(input.getAttribute('name') + ' (' + text.textContent.trim().slice(0, 20) + '): ' + off.toFixed(1) + 'px off its label line');
    }
    return out;
  })()`);
}

test('tab rows have no stray scrollbars and radios and checkboxes sit on their labels\' line, at 1280 and 390 px', async () => {
  const problems: string[] = [];
  for (const [width, height] of [[1280, 800], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    const visit = async (hash: string, ready: string, then?: () => Promise<void>) => {
      await page.goto(`${server.url}/admin/#/${hash}`);
      await page.locator(ready).first().waitFor();
      await then?.();
      for (const p of await layoutProblems(page)) problems.push(`${width}px #/${hash}: ${p}`);
      await page.screenshot({ path: `${SHOTS}/layout-${hash.split('/')[0]}-${width}.png`, fullPage: false });
    };
    await visit(`bots/${createdBot}`, 'nav.tabs');
    await visit('knowledge', 'nav.tabs', async () => { await page.locator('input[name="kind"]').first().waitFor(); });
    await visit('tools', 'nav.tabs');
    await visit('tokens', 'input[name="scope"]');
    await visit('start', 'input[name="templateId"]', async () => {
      const another = page.locator('button:has-text("Connect another provider")');
      if (await another.count()) await page.locator('input[name="templateId"]').first().waitFor();
    });
    await visit('webhooks', 'h1');
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.equal(problems, []);
});

/** The try-it iframe's document once the widget drew its composer. */
async function chatFrame(p: Page): Promise<Frame> {
  const handle = await p.locator('iframe.try-frame').elementHandle();
  const frame = (await handle!.contentFrame())!;
  await frame.locator('.cp textarea').waitFor({ timeout: 15_000 });
  return frame;
}

test.run();
