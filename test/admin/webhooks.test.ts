import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { addMember, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../tools/helpers.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin-build';
let server: TestServer;
let owner: TestSession;
let viewer: TestSession;
let failing = false;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let b: AdminBrowser;
let page: Page;
let secret = '';

test.before(async () => {
  [server, receiver] = await Promise.all([startTestServer(), startReceiver((r, res) => {
    if (failing) res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver is broken today');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: r.headers['service-event'] }));
  })]);
  owner = await setupOwner(server);
  viewer = await addMember(server, owner, 'viewer', { name: 'Vera Viewer' });
  b = await startAdminBrowser(server);
  page = await b.open('webhooks');
  await signIn(page, owner.email);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await receiver?.close();
});

const signed = (body: string, header: string, key: string) => {
  const [t, v1] = header.split(',').map((p) => p.split('=')[1]);
  return createHmac('sha256', key).update(`${t}.${body}`).digest('hex') === v1;
};

test('with no endpoints the page says how to start', async () => {
  await page.locator('.empty-state', { hasText: 'No endpoints yet' }).waitFor();
  await expectAxeClean(page, 'webhooks (empty)');
  await screenshots(page, SHOTS, 'webhooks-empty');
});

test('a refused address is shown at its field in plain words, not as a raw banner, and goes with the next success', async () => {
  const form = page.locator('form[name="add-webhook"]');
  await form.locator('input[name="url"]').fill('ftp://example.com/hooks');
  await form.locator('button[type="submit"]').click();
  const field = form.locator('.field.has-error', { has: page.locator('input[name="url"]') });
  await field.waitFor();
  assert.match(await field.locator('.field-error').textContent() ?? '', 'scheme ftp: is not allowed');
  assert.is(await form.locator('input[name="url"][aria-invalid="true"]').count(), 1);
  assert.is(await form.locator('p.error, ul.error').count(), 0, 'no banner repeating the API\'s wording');
  assert.not.match(await form.textContent() ?? '', 'url: scheme');
  await screenshots(page, SHOTS, 'webhooks-url-error');
});

test('an endpoint is added with its events, and its signing secret is shown once with a copy button', async () => {
  await page.fill('form[name="add-webhook"] input[name="url"]', `${receiver.url}/hooks`);
  await page.uncheck('form[name="add-webhook"] input[value="message.created"]');
  await page.click('form[name="add-webhook"] button[type="submit"]');
  secret = await page.locator('input.webhook-secret').inputValue();
  assert.ok(secret.length >= 20, secret);
  assert.is(await page.locator('.secret-once button:has-text("Copy")').count(), 1);
  await page.locator('.endpoint', { hasText: `${receiver.url}/hooks` }).waitFor();
  assert.is(await page.locator('form[name="add-webhook"] .field.has-error').count(), 0, 'the earlier error went with the success');
  const list = await server.request('GET', '/api/v1/webhooks', { headers: owner.headers });
  assert.not.ok(list.body.items[0].events.includes('message.created'));
  assert.ok(list.body.items[0].events.includes('lead.captured'));
  await screenshots(page, SHOTS, 'webhooks-secret-once');
  await page.click('.secret-once button:has-text("Done")');
  assert.is(await page.locator('input.webhook-secret').count(), 0);
});

test('a test ping is delivered, signed, and shows in the log with its status and the start of the answer', async () => {
  await page.click('.endpoint a:has-text("Deliveries and settings")');
  await page.locator('.empty-state', { hasText: 'Nothing sent yet' }).waitFor();
  await page.click('button:has-text("Send test ping")');
  const row = page.locator('table.deliveries tbody tr').first();
  await page.locator('table.deliveries tr[data-state="delivered"]').waitFor();
  assert.is((await row.locator('.status-code').textContent())?.trim(), '200');
  assert.match(await row.locator('.response-start').textContent() ?? '', '{"received":"ping"}');
  const got = receiver.received.at(-1)!;
  assert.is(got.headers['service-event'], 'ping');
  assert.ok(signed(got.body, String(got.headers['service-signature']), secret), 'signed with the secret the page showed');
});

test('a failed delivery shows the status and answer, and is redelivered from the log', async () => {
  failing = true;
  await page.click('button:has-text("Send test ping")');
  const failed = page.locator('table.deliveries tr[data-state="retrying"], table.deliveries tr[data-state="failed"]').first();
  await failed.waitFor();
  assert.is((await failed.locator('.status-code').textContent())?.trim(), '500');
  assert.match(await failed.locator('.response-start').textContent() ?? '', 'receiver is broken today');
  await expectAxeClean(page, 'webhook endpoint with deliveries');
  await screenshots(page, SHOTS, 'webhooks-deliveries');

  failing = false;
  const before = receiver.received.length;
  await failed.locator('button:has-text("Redeliver")').click();
  await page.locator('table.deliveries tbody tr').first().locator('text=redelivery').waitFor();
  await page.locator('table.deliveries tbody tr[data-state="delivered"]', { hasText: 'redelivery' }).waitFor();
  assert.is(receiver.received.length, before + 1);
});

test('rotating the secret asks first, then shows the new one once; later pings are signed with it', async () => {
  await page.click('button:has-text("Rotate secret")');
  await page.click('dialog[open] button:has-text("Rotate")');
  const next = await page.locator('input.webhook-secret').inputValue();
  assert.ok(next.length >= 20 && next !== secret);
  await page.click('.secret-once button:has-text("Done")');
  await page.click('button:has-text("Send test ping")');
  await page.waitForFunction((n) => document.querySelectorAll('table.deliveries tr[data-state="delivered"]').length >= n, 3);
  const got = receiver.received.at(-1)!;
  assert.ok(signed(got.body, String(got.headers['service-signature']), next));
});

test('an endpoint is switched off and on from its settings', async () => {
  await page.click('details.more summary');
  await page.click('form[name="edit-webhook"] button:has-text("Switch off")');
  await page.locator('form[name="edit-webhook"] button:has-text("Switch on")').waitFor();
  assert.is((await server.request('GET', '/api/v1/webhooks', { headers: owner.headers })).body.items[0].active, false);
  await page.locator('text=with the ones it missed in the last week').first().waitFor();
  await screenshots(page, SHOTS, 'webhooks-switched-off');
  await page.click('form[name="edit-webhook"] button:has-text("Switch on")');
  await page.locator('form[name="edit-webhook"] button:has-text("Switch off")').waitFor();
});

test('a viewer has no webhooks entry (webhooks need an admin)', async () => {
  const v = await b.open('knowledge');
  await signIn(v, viewer.email);
  assert.is(await v.locator('nav a:has-text("Webhooks")').count(), 0);
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors, []);
});

test.run();
