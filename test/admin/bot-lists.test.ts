/**
 * The bot editor's lists of objects in headless Chromium: lead form fields and opening hours are added and saved,
 * a bad field key is refused by the API and shown at its row, own interface wording is saved as a map, and each
 * voice engine's settings pass axe.
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
let botId: string;

const draft = async () => (await server.request('GET', `/api/v1/bots/${botId}`, { headers: owner.headers })).body.draft;
const save = async () => {
  await page.click('.save-bar button[type="submit"]');
  await page.locator('.save-bar').waitFor({ state: 'detached' });
};

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server, { workspaceName: 'Acme' });
  botId = (await server.request('POST', '/api/v1/bots', { body: { name: 'Leads bot' }, headers: owner.headers })).body.id;
  b = await startAdminBrowser(server);
  page = await b.open();
  await signIn(page, owner.email);
  await page.goto(`${server.url}/admin/#/bots/${botId}/settings/behaviour`);
  await page.locator('#group-title', { hasText: 'Behaviour' }).waitFor();
});
test.after(async () => {
  await b?.close();
  await server?.stop();
});

test('a lead form field is added, and a bad key is shown at its row until it is fixed', async () => {
  await page.locator('[name="behavior.leadCapture.enabled"]').check();
  const rows = page.locator('fieldset[data-path="behavior.leadCapture.fields"] .row-edit');
  await rows.nth(1).waitFor();
  assert.is(await rows.count(), 2, 'the default fields: name and e-mail');
  await page.click('button:has-text("Add a field")');
  const added = rows.nth(2);
  await added.locator('label:has-text("Label") input').fill('Company');
  await added.locator('label:has-text("Key") input').fill('Company Name');
  await page.click('.save-bar button[type="submit"]');
  await added.locator('.field-error').waitFor();
  assert.match(await added.locator('.field-error').textContent() ?? '', /[a-z]/);
  await screenshots(page, '/tmp/shots/admin-bot', 'lead-fields-error');
  await added.locator('label:has-text("Key") input').fill('company');
  await save();
  const fields = (await draft()).behavior.leadCapture.fields;
  assert.equal(fields.map((f: { key: string }) => f.key), ['name', 'email', 'company']);
});

test('opening hours get a Saturday period and a holiday', async () => {
  await page.locator('[name="behavior.hours.enabled"]').check();
  await page.click('button:has-text("Add a period")');
  const rows = page.locator('fieldset[data-path="behavior.hours.weekly"] .row-edit');
  const last = rows.last();
  await last.locator('select').selectOption('6');
  await last.locator('label:has-text("Opens") input').fill('10:00');
  await last.locator('label:has-text("Closes") input').fill('14:00');
  await page.locator('[name="behavior.hours.holidays"]').fill('2026-12-25\n');
  await save();
  const hours = (await draft()).behavior.hours;
  assert.equal(hours.weekly[hours.weekly.length - 1], { day: 6, open: '10:00', close: '14:00' });
  assert.equal(hours.holidays, ['2026-12-25'], 'blank lines are dropped');
  await expectAxeClean(page, 'the behaviour settings with lists', { exclude: ['iframe.preview-frame'] });
});

test('own wording for interface texts is saved as a map, and Discard puts the saved one back', async () => {
  await page.click('.groups a:has-text("Texts & greeting")');
  const rows = page.locator('fieldset[data-path="texts.strings"]');
  for (const [key, value] of [['composer.send', 'Ask'], ['header.close', 'Hide']]) {
    await rows.locator('button', { hasText: 'Add a wording' }).click();
    await rows.locator('input[name="texts.strings.key"]').last().fill(key);
    await rows.locator('input[name="texts.strings.value"]').last().fill(value);
  }
  await save();
  assert.equal((await draft()).texts.strings, { 'composer.send': 'Ask', 'header.close': 'Hide' });
  await rows.locator('input[name="texts.strings.value"]').first().fill('Go');
  await page.click('.save-bar button:has-text("Discard")');
  await page.waitForFunction(() => (document.querySelector('fieldset[data-path="texts.strings"] input[name="texts.strings.value"]') as HTMLInputElement | null)?.value === 'Ask');
});

test('each voice engine shows its own settings, every one labelled and described', async () => {
  await page.click('.groups a:has-text("Voice")');
  for (const [mode, block] of [['cascade', 'Cascade engine'], ['hosted_agent', 'Hosted voice agent'], ['realtime', 'Realtime engine']]) {
    await page.locator('[name="voice.mode"]').selectOption(mode);
    await page.locator('.set-block h3', { hasText: block }).waitFor();
    await expectAxeClean(page, `the ${mode} voice settings`, { exclude: ['iframe.preview-frame'] });
  }
  assert.is(await page.locator('.save-bar').count(), 0, 'back on the saved engine: nothing to save');
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors.filter((e) => !/widget\/v1\/chat\?.*Unexpected response code: 403/.test(e)), []);
});

test.run();
