import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startChatWorld, type ChatWorld, type Visitor } from '../chat/helpers.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

let w: ChatWorld;
let b: AdminBrowser;
let page: Page;
let visitor: Visitor;

test.before(async () => {
  w = await startChatWorld();
  b = await startAdminBrowser(w.server);
  page = await b.open('live');
  await signIn(page, w.owner.email);
});
test.after(async () => {
  await visitor?.close();
  await b?.close();
  await w?.close();
});

test('the live page is connected and a conversation a visitor starts shows up as it happens', async () => {
  await page.locator('.live-state .badge.open').waitFor();
  visitor = await w.visitor();
  w.fake.script({ text: 'Hello from the bot.' });
  visitor.say('Hi, is anyone there?');
  await page.locator('li.event[data-type="conversation.started"]').waitFor();
  await page.locator('li.event[data-type="message.created"]', { hasText: 'Hello from the bot.' }).waitFor();
  assert.ok(await page.locator('li.event[data-type="message.created"]', { hasText: 'Hi, is anyone there?' }).count() >= 1);
});

test('presence set to away on the live page is what the team sees', async () => {
  await page.click('button:has-text("Set away")');
  await page.locator('.live-state .presence.away').waitFor();
  await page.locator('li.event[data-type="presence.changed"]', { hasText: 'you are away' }).waitFor();
  const members = await w.server.request('GET', '/api/v1/members', { headers: w.owner.headers });
  assert.is(members.body.items[0].presence, 'away');
  await page.click('button:has-text("Set online")');
  await page.locator('.live-state .presence.online').waitFor();
});

test('the conversation opens from its event: take over, reply to the visitor, hand back', async () => {
  await page.locator('li.event[data-type="conversation.started"] a').click();
  await page.locator('ol.transcript li.msg.user', { hasText: 'Hi, is anyone there?' }).waitFor();
  await page.locator('ol.transcript li.msg.assistant', { hasText: 'Hello from the bot.' }).waitFor();

  await page.click('button:has-text("Take over")');
  await page.locator('.taken-over', { hasText: 'Olivia Owner' }).waitFor();
  await visitor.next('message', (f) => f.message.role === 'system_event');

  assert.is(await page.locator('form[name="reply"] input[name="internal"]').isChecked(), false);
  await page.fill('form[name="reply"] textarea', 'Olivia here, how can I help?');
  await page.click('form[name="reply"] button[type="submit"]');
  const reply = await visitor.next('message', (f) => f.message.role === 'human_agent');
  assert.is(reply.message.text, 'Olivia here, how can I help?');
  await page.locator('ol.transcript li.msg.human_agent', { hasText: 'Olivia here' }).waitFor();

  // What the visitor writes next appears without a reload (the page follows the live socket).
  visitor.say('I need a refund');
  await page.locator('ol.transcript li.msg.user', { hasText: 'I need a refund' }).waitFor();
  await page.screenshot({ path: '/tmp/admin-conversation.png', fullPage: true });

  await page.click('button:has-text("Hand back to the AI")');
  await page.locator('.taken-over', { hasText: 'nobody' }).waitFor();
});

test('the conversations list shows it, newest first', async () => {
  await page.click('nav a:has-text("Conversations")');
  const rows = page.locator('table.conversations tbody tr');
  await rows.first().waitFor();
  assert.is(await rows.count(), 1);
  assert.match(await rows.first().textContent() ?? '', 'open');
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors, []);
});

test.run();
