/**
 * Replies that arrive while the chat is closed: a count on the launcher, and for a team member's reply the count in
 * the page title too, both cleared when the visitor opens the chat.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { framesOf, startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test('a team reply to a closed chat shows a count on the launcher and in the title until the chat is opened', async () => {
  const botId = await w.createBot();
  const page = await w.newPage();
  // Counts the chime's notes (two oscillators per chime).
  await page.addInitScript(() => { const o = AudioContext.prototype.createOscillator; AudioContext.prototype.createOscillator = function () { (window as any).__notes = ((window as any).__notes || 0) + 1; return o.call(this); }; });
  await page.goto(w.page('/unread', w.embed(botId)));
  const launcher = page.locator('button.l');
  await launcher.click();
  w.fake.script({ text: 'A person will look at this.' });
  await page.fill('.cp textarea', 'I need a refund');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'A person will look' }).waitFor();
  await launcher.click();
  await page.locator('.w.panel[hidden]').waitFor({ state: 'attached' });
  assert.is(await launcher.locator('.n').count(), 0);
  assert.is(await page.title(), 'Host page');

  const conv = (await framesOf(page, 'conversation')).filter((f) => f.conversationId).pop();
  const as = (path: string, body?: unknown) => w.server.request('POST', `/api/v1/conversations/${conv.conversationId}${path}`, { headers: w.owner.headers, body });
  assert.is((await as('/takeover')).status, 200);
  assert.is((await as('/messages', { text: 'Hi, Alex here. Let me look.' })).status, 201);
  await launcher.locator('.n', { hasText: '1' }).waitFor();
  assert.is(await page.title(), '(1) Host page');
  assert.is(await page.evaluate(() => (window as any).__notes), 2, 'a chime for the team reply');
  assert.is(await launcher.getAttribute('aria-label'), 'Open chat (1)');
  assert.is((await as('/messages', { text: 'Found it: refunded.' })).status, 201);
  await launcher.locator('.n', { hasText: '2' }).waitFor();
  assert.is(await page.title(), '(2) Host page');
  assert.is(await page.evaluate(() => (window as any).__notes), 4, 'a chime for each team reply');
  const badge = await launcher.locator('.n').evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
  assert.equal(badge, ['rgb(185, 28, 28)', 'rgb(255, 255, 255)']);
  await page.screenshot({ path: '/tmp/widget-unread.png' });

  await launcher.click();
  await page.locator('.m.human_agent', { hasText: 'refunded' }).waitFor();
  assert.is(await launcher.locator('.n').count(), 0);
  assert.is(await page.title(), 'Host page');
  assert.is(await launcher.getAttribute('aria-label'), 'Close chat');
});

test.run();
