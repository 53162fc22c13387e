/**
 * What the coverage audit added to the panel (docs/admin.md, API coverage): your own account (password change that
 * signs out your other browsers), data requests (find a visitor, download their data, erase them), deleting the
 * workspace; and two pieces of polish: at most two toasts, newest on top, and the bot editor asking before a link
 * inside the panel drops unsaved edits.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { identityHash } from '../../src/chat/identity.js';
import { startTeamWorld, type TeamWorld } from '../team/helpers.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin-more';
let w: TeamWorld;
let b: AdminBrowser;
let page: Page;
let visitorId = '';

const go = async (hash: string) => { await page.evaluate((h) => { location.hash = h; }, hash); };
const api = (method: string, path: string, headers: Record<string, string>, body?: unknown) => w.server.request(method, `/api/v1${path}`, { body, headers });

test.before(async () => {
  w = await startTeamWorld({ security: { identity: { mode: 'optional' } } });
  const secret = (await api('POST', `/bots/${w.botId}/identity-secret`, w.owner.headers)).body.secret;
  const visitor = await w.widget({ userId: 'cust-7', userHash: identityHash(secret, 'cust-7'), email: 'erin@example.com', name: 'Erin' } as never);
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'Where is my order?' });
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  await visitor.close();
  b = await startAdminBrowser(w.server);
  page = await b.open('privacy');
  await signIn(page, w.owner.email);
});
test.after(async () => { await b?.close(); await w?.stop(); });

test('data requests: nobody found says so; a visitor is found, their data downloads, and erasing asks first', async () => {
  await page.locator('h1', { hasText: 'Data requests' }).waitFor();
  await page.fill('input[name="email"]', 'nobody@example.com');
  await page.click('form[name="find-visitor"] button[type="submit"]');
  await page.locator('.empty-state', { hasText: 'No visitor found' }).waitFor();

  await page.fill('input[name="email"]', 'ERIN@example.com');
  await page.click('form[name="find-visitor"] button[type="submit"]');
  const row = page.locator('table.visitors tbody tr', { hasText: 'Erin' });
  await row.waitFor();
  visitorId = (await row.getAttribute('data-id'))!;
  assert.match(await row.textContent() ?? '', 'cust-7');
  await expectAxeClean(page, 'data requests');
  await screenshots(page, SHOTS, 'privacy-found');

  const [download] = await Promise.all([page.waitForEvent('download'), row.locator('a', { hasText: 'Download data' }).click()]);
  const data = JSON.parse(readFileSync((await download.path())!, 'utf8'));
  assert.is(data.visitor.email, 'erin@example.com');
  assert.equal(data.conversations[0].messages.map((m: { text: string }) => m.text)[0], 'Where is my order?');

  await row.locator('button', { hasText: 'Erase' }).click();
  const dialog = page.locator('dialog', { hasText: 'Erase erin@example.com?' });
  await dialog.waitFor();
  await expectAxeClean(page, 'the erase confirmation');
  await dialog.locator('button', { hasText: 'Cancel' }).click();
  assert.is((await api('GET', '/visitors?userId=cust-7', w.owner.headers)).body.items.length, 1, 'cancel erases nothing');

  await row.locator('button', { hasText: 'Erase' }).click();
  await page.click('dialog button:has-text("Erase for good")');
  await page.locator('.toast', { hasText: 'Erased erin@example.com: 1 conversation' }).waitFor();
  await row.waitFor({ state: 'detached' });
  assert.is((await api('GET', '/visitors?userId=cust-7', w.owner.headers)).body.items.length, 0);
  assert.is((await api('GET', `/visitors/${visitorId}/export`, w.owner.headers)).status, 404);
});

test('data requests: a lead added by hand (no visitor, no chat) is found by its e-mail, downloads and erases', async () => {
  const lead = (await api('POST', '/leads', w.owner.headers, { botId: w.botId, fields: { name: 'Hank', email: 'Hank.Hand@Example.com' } })).body;
  await page.fill('input[name="email"]', 'hank.hand@example.com');
  await page.click('form[name="find-visitor"] button[type="submit"]');
  const row = page.locator('table.loose-leads tbody tr', { hasText: 'Hank' });
  await row.waitFor();
  assert.is(await page.locator('.empty-state').count(), 0, 'not "nothing to export or erase"');
  await expectAxeClean(page, 'data requests with a hand-added lead');
  await screenshots(page, SHOTS, 'privacy-loose-lead');
  const [download] = await Promise.all([page.waitForEvent('download'), row.locator('a', { hasText: 'Download data' }).click()]);
  const data = JSON.parse(readFileSync((await download.path())!, 'utf8'));
  assert.is(data.lead.id, lead.id);
  assert.is(data.lead.fields.email, 'Hank.Hand@Example.com');
  await row.locator('button', { hasText: 'Erase' }).click();
  await page.click('dialog button:has-text("Erase for good")');
  await page.locator('.toast', { hasText: 'Erased the lead Hank.Hand@Example.com' }).waitFor();
  await row.waitFor({ state: 'detached' });
  assert.is((await api('GET', '/leads', w.owner.headers)).body.items.filter((l: { id: string }) => l.id === lead.id).length, 0);
});

test('data requests: an erase that failed says why, and the next search that succeeds clears it (no stale error)', async () => {
  const lead = (await api('POST', '/leads', w.owner.headers, { botId: w.botId, fields: { name: 'Ida', email: 'ida@example.com' } })).body;
  await page.fill('input[name="email"]', 'ida@example.com');
  await page.click('form[name="find-visitor"] button[type="submit"]');
  const row = page.locator('table.loose-leads tbody tr', { hasText: 'Ida' });
  await row.waitFor();
  // Someone else erased it meanwhile: this erase fails and says so.
  assert.is((await api('DELETE', `/leads/${lead.id}`, w.owner.headers)).status, 204);
  await row.locator('button', { hasText: 'Erase' }).click();
  await page.click('dialog button:has-text("Erase for good")');
  const failed = page.locator('p.error[role="alert"]');
  await failed.waitFor();
  await api('POST', '/leads', w.owner.headers, { botId: w.botId, fields: { name: 'Jo', email: 'jo@example.com' } });
  await page.fill('input[name="email"]', 'jo@example.com');
  await page.click('form[name="find-visitor"] button[type="submit"]');
  await page.locator('table.loose-leads tbody tr', { hasText: 'Jo' }).waitFor();
  assert.is(await failed.count(), 0, 'the failed erase\'s error stays after a search that worked');
});

test('your account: a wrong current password is shown at its field; a change signs out your other browsers only', async () => {
  const agentPage = await b.open('account');
  await signIn(agentPage, w.agent.email);
  await agentPage.locator('h1', { hasText: 'Your account' }).waitFor();
  assert.match(await agentPage.locator('.facts').textContent() ?? '', 'Alex Agent');
  // An agent has no data requests and no workspace deletion.
  assert.is(await agentPage.locator('nav a', { hasText: 'Data requests' }).count(), 0);
  await expectAxeClean(agentPage, 'your account');
  await screenshots(agentPage, SHOTS, 'account');

  const form = agentPage.locator('form[name="password"]');
  await form.locator('input[name="currentPassword"]').fill('not my password');
  await form.locator('input[name="newPassword"]').fill('a brand new secret');
  await form.locator('input[name="again"]').fill('a brand new secret');
  await form.locator('button[type="submit"]').click();
  const fieldError = await form.locator('.field.has-error').first().textContent();
  assert.match(fieldError ?? '', /Current password.*not your current password/);
  await expectAxeClean(agentPage, 'your account with an error');

  await form.locator('input[name="currentPassword"]').fill(w.agent.password);
  await form.locator('input[name="again"]').fill('a brand new secreT');
  await form.locator('button[type="submit"]').click();
  await form.locator('.field.has-error', { hasText: 'The two new passwords differ' }).waitFor();

  await form.locator('input[name="again"]').fill('a brand new secret');
  await form.locator('button[type="submit"]').click();
  await agentPage.locator('.toast', { hasText: 'Password changed' }).waitFor();
  assert.is((await api('GET', '/me', w.agent.headers)).status, 401, 'the test\'s own session (another browser) was signed out');
  await agentPage.reload();
  await agentPage.locator('h1', { hasText: 'Your account' }).waitFor();
  const login = await w.server.request('POST', '/api/v1/auth/login', { body: { email: w.agent.email, password: 'a brand new secret' } });
  assert.is(login.status, 200);
  await agentPage.close();
});

test('the bot editor: own wording and face settings are key/value rows; removing a row removes the key', async () => {
  await go(`#/bots/${w.botId}/settings/texts`);
  const strings = page.locator('fieldset[data-path="texts.strings"]');
  await strings.locator('button', { hasText: 'Add a wording' }).click();
  await strings.locator('input[name="texts.strings.key"]').fill('composer.send');
  assert.is(await strings.locator('input[name="texts.strings.value"]').getAttribute('placeholder'), 'Send', 'the standard words show as the placeholder');
  await strings.locator('input[name="texts.strings.value"]').fill('Ask');
  await go(`#/bots/${w.botId}/settings/appearance`);
  const face = page.locator('fieldset[data-path="face.config"]');
  await face.locator('button', { hasText: 'Add a face setting' }).click();
  await face.locator('input[name="face.config.key"]').fill('blinkRate');
  await face.locator('input[name="face.config.value"]').fill('0.5');
  await expectAxeClean(page, 'face settings rows');
  await screenshots(page, SHOTS, 'face-config-rows');
  await page.click('.save-bar button[type="submit"]');
  await page.locator('.save-bar').waitFor({ state: 'detached' });
  let draft = (await api('GET', `/bots/${w.botId}`, w.owner.headers)).body.draft;
  assert.equal(draft.texts.strings, { 'composer.send': 'Ask' });
  assert.is(draft.face.config.blinkRate, 0.5, 'a number stays a number');
  assert.ok(draft.face.config.preset, 'the preset is kept');

  await go(`#/bots/${w.botId}/settings/texts`);
  await strings.locator('input[name="texts.strings.value"]').waitFor();
  await expectAxeClean(page, 'own wording rows');
  await screenshots(page, SHOTS, 'strings-rows');
  await strings.getByRole('button', { name: 'Remove composer.send' }).click();
  await page.click('.save-bar button[type="submit"]');
  await page.locator('.save-bar').waitFor({ state: 'detached' });
  draft = (await api('GET', `/bots/${w.botId}`, w.owner.headers)).body.draft;
  assert.equal(draft.texts.strings ?? {}, {});
});

test('toasts: two at most, the newest on top', async () => {
  await go('#/settings');
  const save = page.locator('form[name="settings"] button[type="submit"]');
  await save.click();
  await page.locator('.toast').first().waitFor();
  await save.click();
  await page.waitForFunction(() => document.querySelectorAll('.toast').length === 2);
  await save.click();
  await page.locator('.toast').first().waitFor();
  await go('#/account');
  const form = page.locator('form[name="password"]');
  await form.locator('input[name="currentPassword"]').fill(w.owner.password);
  await form.locator('input[name="newPassword"]').fill(w.owner.password);
  await form.locator('input[name="again"]').fill(w.owner.password);
  await form.locator('button[type="submit"]').click();
  await page.locator('.toast', { hasText: 'Password changed' }).waitFor();
  const texts = await page.locator('.toast').allTextContents();
  assert.is(texts.length, 2, texts.join(' | '));
  assert.match(texts[0], 'Password changed');
  assert.match(texts[1], 'Settings saved');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}/toasts-390.png` });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('the bot editor asks before a link inside the panel drops unsaved edits; moving between its groups does not', async () => {
  await go(`#/bots/${w.botId}/settings/identity`);
  const name = page.locator('[name="identity.agentName"]');
  await name.fill('Maya');
  await page.locator('.save-bar').waitFor();
  await go(`#/bots/${w.botId}/settings/brain`);
  await page.locator('[name="brain.maxOutputTokens"]').waitFor();
  assert.is(await page.locator('dialog').count(), 0, 'no question inside the bot');

  await page.click('nav a:has-text("Leads")');
  const dialog = page.locator('dialog', { hasText: 'Leave without saving?' });
  await dialog.waitFor();
  await expectAxeClean(page, 'the leave question');
  await screenshots(page, SHOTS, 'leave-question');
  assert.match(page.url(), `#/bots/${w.botId}/settings/brain`, 'the address stays while it asks');
  await dialog.locator('button', { hasText: 'Stay' }).click();
  await page.locator('.save-bar', { hasText: '1 unsaved change' }).waitFor();
  assert.is(await page.locator('h1', { hasText: 'Leads' }).count(), 0);

  await page.click('nav a:has-text("Leads")');
  await page.click('dialog button:has-text("Leave")');
  await page.locator('h1', { hasText: 'Leads' }).waitFor();
  assert.match(page.url(), '#/leads');
  // Nothing unsaved any more: links go at once.
  await page.click('nav a:has-text("Inbox")');
  await page.waitForFunction(() => location.hash === '#/inbox');
  assert.is(await page.locator('dialog').count(), 0);
});

test('leads: a lead is added by hand with the bot\'s own form fields; the API\'s refusal is shown at its field', async () => {
  // Straight from the inbox the last test opened: the inbox once sent a person who left it back to it, when it
  // redrew (here: its bot list arriving) between the address's change and the hashchange event; CI caught that
  // here. The message below says where the page was if the heading does not show.
  await go('#/leads');
  await page.locator('h1', { hasText: 'Leads' }).waitFor().catch(async (err: Error) => {
    await page.screenshot({ path: `${SHOTS}/leads-not-shown.png` });
    throw new Error(`${err.message}\nthe page was at ${page.url()} with headings: ${(await page.locator('h1').allTextContents()).join(' | ')}`);
  });
  await page.click('button:has-text("Add lead")');
  const dialog = page.locator('dialog', { hasText: 'Add a lead' });
  await dialog.locator('input[name="fields.email"]').waitFor();
  await dialog.locator('input[name="fields.name"]').fill('Grace Hopper');
  // The browser's own e-mail check lets this through; the server's is stricter.
  await dialog.locator('input[name="fields.email"]').fill('grace@localhost');
  await dialog.locator('button[type="submit"]').click();
  const err = dialog.locator('.field.has-error');
  await err.waitFor();
  assert.match(await err.textContent() ?? '', /E-?mail.*not a valid e-mail address/i);
  await expectAxeClean(page, 'add a lead with an error');
  await screenshots(page, SHOTS, 'add-lead');
  await dialog.locator('input[name="fields.email"]').fill('grace@example.com');
  await dialog.locator('button[type="submit"]').click();
  await page.locator('table.leads tr', { hasText: 'Grace Hopper' }).waitFor();
  assert.match(await page.locator('table.leads tr', { hasText: 'Grace Hopper' }).textContent() ?? '', 'API');
});

test('deleting the workspace: only after typing its name; the panel then starts from setup', async () => {
  await go('#/settings');
  await page.click('button:has-text("Delete workspace…")');
  const dialog = page.locator('dialog', { hasText: 'This cannot be undone' });
  await dialog.waitFor();
  await expectAxeClean(page, 'the delete-workspace dialog');
  await screenshots(page, SHOTS, 'delete-workspace');
  const confirm = dialog.locator('button[type="submit"]');
  assert.ok(await confirm.isDisabled(), 'disabled until the name is typed');
  // (the owner's API session ended with the password change above: the name is read from the panel)
  const ws = (await page.locator('nav .brand').first().textContent())!;
  await dialog.locator('input[name="confirmName"]').fill(`${ws} nope`);
  assert.ok(await confirm.isDisabled());
  await dialog.locator('input[name="confirmName"]').fill(ws);
  await confirm.click();
  await page.locator('form[name="setup"]').waitFor();
  assert.is((await api('GET', '/setup', {})).body.needsSetup, true);
  assert.equal(b.errors.filter((e) => !/401|Unauthorized/.test(e)), []);
});

test.run();
