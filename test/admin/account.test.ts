import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { DEFAULT_PASSWORD } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

let server: TestServer;
let b: AdminBrowser;
let page: Page;

test.before(async () => {
  server = await startTestServer();
  b = await startAdminBrowser(server);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
});

test('the panel is served at /admin with a strict content security policy and no inline script', async () => {
  const r = await server.fetch('/admin/');
  assert.is(r.status, 200);
  const csp = r.headers.get('content-security-policy') ?? '';
  assert.match(csp, "script-src 'self'");
  assert.not.match(csp, 'unsafe-inline');
  const html = await r.text();
  // The shipped page names the build's content-hashed files (scripts/build.mjs).
  assert.match(html, /<script type="module" src="\/static\/admin\/app\.[A-Z0-9]+\.js"><\/script>/);
  assert.not.match(html, /<script>/);
  const css = html.match(/href="(\/static\/admin\/app\.[A-Z0-9]+\.css)"/)?.[1];
  assert.ok(css, 'the page names its stylesheet');
  assert.is((await server.fetch(css!)).headers.get('content-type'), 'text/css; charset=utf-8');
});

test('a new server opens on setup, and setup signs the owner in', async () => {
  page = await b.open();
  await page.locator('form[name="setup"]').waitFor();
  await page.fill('input[name="workspaceName"]', 'Acme');
  await page.fill('input[name="name"]', 'Olivia Owner');
  await page.fill('input[name="email"]', 'owner@example.com');
  await page.fill('input[name="password"]', 'short');
  await page.click('form[name="setup"] button[type="submit"]');
  // The browser's own check stops a too-short password; the server's message is shown for what it refuses.
  assert.is(await page.locator('form[name="setup"]').isVisible(), true);
  await page.fill('input[name="password"]', DEFAULT_PASSWORD);
  await page.click('form[name="setup"] button[type="submit"]');
  await page.locator('nav.nav').waitFor();
  assert.is(await page.locator('nav .brand').textContent(), 'Acme');
  // A new owner continues on the guided first run (docs/admin.md, First run).
  assert.match(page.url(), /#\/start$/);
});

test('signing out shows the sign-in form; a wrong password shows the API message; the right one signs in', async () => {
  await page.click('nav button:has-text("Sign out")');
  await page.locator('form[name="login"]').waitFor();
  await page.fill('input[name="email"]', 'owner@example.com');
  await page.fill('input[name="password"]', 'not the password');
  await page.click('form[name="login"] button[type="submit"]');
  const err = await page.locator('form[name="login"] .error').textContent();
  assert.ok(err && err.length > 3, `error shown: ${err}`);
  await signIn(page, 'owner@example.com');
  assert.is(await page.locator('nav .me span').textContent(), 'Olivia Owner');
  // The session survives a reload (the cookie), and setup is not offered again.
  await page.reload();
  await page.locator('nav.nav').waitFor();
});

test('an API token is created with its scopes, its value shown once, and it works until revoked', async () => {
  await page.click('nav a:has-text("API tokens")');
  await page.fill('form[name="create-token"] input[name="name"]', 'CRM sync');
  await page.check('form[name="create-token"] input[value="leads:read"]');
  await page.click('form[name="create-token"] button[type="submit"]');
  const value = await page.locator('input.token-value').inputValue();
  assert.ok(value.length > 20);
  assert.is((await server.request('GET', '/api/v1/leads', { headers: { authorization: `Bearer ${value}` } })).status, 200);
  await page.locator('table.tokens td', { hasText: 'CRM sync' }).waitFor();
  assert.equal(await page.locator('table.tokens tr', { hasText: 'CRM sync' }).locator('.scopes-cell .badge').allTextContents(), ['conversations:read', 'leads:read']);
  // Once dismissed (or after a reload) the value is gone from the page.
  await page.click('.once button:has-text("Done")');
  assert.is(await page.locator('input.token-value').count(), 0);
  await page.reload();
  await page.locator('table.tokens').waitFor();
  assert.not.match(await page.content(), value);
  await page.click('table.tokens button:has-text("Revoke")');
  await page.click('dialog button:has-text("Revoke token")');
  await page.locator('.empty-state', { hasText: 'No tokens yet' }).waitFor();
  assert.is((await server.request('GET', '/api/v1/leads', { headers: { authorization: `Bearer ${value}` } })).status, 401);
});

test('an invitation shows its link, and the link opened in a fresh browser joins the workspace', async () => {
  await page.click('nav a:has-text("Team")');
  await page.fill('form[name="invite"] input[name="email"]', 'alex@example.com');
  await page.selectOption('form[name="invite"] select[name="role"]', 'agent');
  await page.click('form[name="invite"] button[type="submit"]');
  const link = await page.locator('input.invite-link').inputValue();
  assert.match(link, /\/admin\/#\/invite\/[\w-]+$/);
  await page.locator('table.invites td', { hasText: 'alex@example.com' }).waitFor();

  const invitee = await b.open(`invite/${link.split('#/invite/')[1]}`);
  await invitee.locator('form[name="accept"]').waitFor();
  assert.match(await invitee.locator('.invite-for').textContent() ?? '', 'alex@example.com');
  await invitee.fill('form[name="accept"] input[name="name"]', 'Alex Agent');
  await invitee.fill('form[name="accept"] input[name="password"]', DEFAULT_PASSWORD);
  await invitee.click('form[name="accept"] button[type="submit"]');
  await invitee.locator('nav.nav').waitFor();
  assert.is(await invitee.locator('nav .me small').textContent(), 'agent');
  // An agent has no API tokens page and cannot invite.
  assert.is(await invitee.locator('nav a:has-text("API tokens")').count(), 0);
  await invitee.click('nav a:has-text("Team")');
  await invitee.locator('table.members td', { hasText: 'Alex Agent' }).waitFor();
  assert.is(await invitee.locator('form[name="invite"]').count(), 0);

  // The same link does not work twice: the API's message is shown.
  const again = await b.open(`invite/${link.split('#/invite/')[1]}`);
  await again.locator('.error').waitFor();
});

test('cancelling an invitation takes its link off the screen', async () => {
  await page.fill('form[name="invite"] input[name="email"]', 'bob@example.com');
  await page.click('form[name="invite"] button[type="submit"]');
  await page.locator('table.invites td', { hasText: 'bob@example.com' }).waitFor();
  const link = await page.locator('input.invite-link').inputValue();
  assert.match(link, /#\/invite\//);
  await page.locator('table.invites tr', { hasText: 'bob@example.com' }).locator('button:has-text("Cancel")').click();
  await page.click('dialog button:has-text("Cancel invitation")');
  await page.locator('table.invites td', { hasText: 'bob@example.com' }).waitFor({ state: 'detached' });
  await page.locator('input.invite-link').waitFor({ state: 'detached' });
  assert.not.match(await page.content(), link.split('#/invite/')[1]!);
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors, []);
});

test.run();
