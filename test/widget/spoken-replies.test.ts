/**
 * Spoken text replies (appearance.face.textReplies speak) in headless Chromium: the widget on a host page, the real
 * server, the fake OpenAI speech endpoint. Screenshots: /tmp/speak-*.png.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { framesOf, sentOf, startWidgetWorld, type WidgetWorld } from './world.js';

const REPLY = 'We open at nine. We close at five.';
let w: WidgetWorld;
let botId: string;

test.before(async () => {
  w = await startWidgetWorld();
  botId = await w.createBot({
    welcome: { message: 'Hi! I read my answers aloud.', suggestedPrompts: [] },
    appearance: { theme: { accent: '#0f766e', mode: 'light' }, face: { textReplies: 'speak' } },
  });
});
test.after(async () => { await w?.close(); });

const openChat = (bot = botId): Promise<Page> => w.openChat(bot);
const binIn = (page: Page): Promise<number> => page.evaluate(() => (window as any).__binIn ?? 0);
const voiceLoaded = (page: Page) => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/voice[.-][^/]*js$|\/voice\.js$/.test(e.name)));
const replies = async (page: Page) => (await framesOf(page, 'message')).filter((f) => f.message.role === 'assistant').length;

test('the sound button shows only for a bot that speaks its replies', async () => {
  const plain = await w.createBot();
  const page = await openChat(plain);
  assert.is(await page.locator('.hd .sound').count(), 0);
  const page2 = await openChat();
  assert.is(await page2.locator('.hd .sound').getAttribute('aria-label'), 'Stop reading replies aloud');
  assert.is(await page2.locator('.hd .sound').getAttribute('aria-pressed'), 'true');
});

test('before the visitor clicks or types in the chat a reply is mimed; after typing, replies are read aloud; the sound button turns it off', async () => {
  const page = await openChat();
  // A message sent by the page's script (no click or key in the chat): sound is still locked.
  w.fake.script({ text: REPLY });
  await page.evaluate(() => (window as any).__sockets[0].send(JSON.stringify({ t: 'message', text: 'hours?' })));
  await page.locator('.m.assistant:not(.welcome)').filter({ hasText: 'We close at five.' }).waitFor();
  assert.is((await sentOf(page, 'speak')).length, 0);
  assert.is((await framesOf(page, 'speak_item')).length, 0);
  assert.is(await binIn(page), 0);
  assert.is(await voiceLoaded(page), false, 'voice.js is not loaded before a reply is spoken');
  await page.screenshot({ path: '/tmp/speak-mimed.png' });

  // Typing unlocks sound: the widget asks for speech, and the next reply plays.
  w.fake.speech.chunkIntervalMs = 60;
  w.fake.script({ text: REPLY });
  await page.locator('.cp textarea').fill('');
  await page.locator('.cp textarea').type('and on Saturday?');
  await page.keyboard.press('Enter');
  await page.locator('.hd .sound.playing').waitFor();
  await page.screenshot({ path: '/tmp/speak-playing.png' });
  assert.equal(await sentOf(page, 'speak'), [{ t: 'speak', on: true }]);
  const item = (await framesOf(page, 'speak_item'))[0];
  assert.ok(item, 'the reply was announced');
  assert.ok(await binIn(page) > 0);
  assert.is(await voiceLoaded(page), true);
  await page.locator('.hd .sound:not(.playing)').waitFor({ timeout: 8000 });
  assert.ok((await framesOf(page, 'speak_end')).some((f) => f.itemId === item.itemId));

  // Sound off: remembered, nothing is synthesised for the next reply.
  await page.locator('.hd .sound').click();
  assert.is(await page.locator('.hd .sound').getAttribute('aria-pressed'), 'false');
  assert.equal((await sentOf(page, 'speak')).at(-1), { t: 'speak', on: false });
  const before = await binIn(page);
  const n = await replies(page);
  w.fake.script({ text: 'Closed on Sundays.' });
  await page.locator('.cp textarea').type('Sunday?');
  await page.keyboard.press('Enter');
  await page.waitForFunction((k) => (window as any).__frames.filter((f: any) => f.t === 'message' && f.message.role === 'assistant').length > k, n);
  assert.is(await binIn(page), before);
  assert.is((await framesOf(page, 'speak_item')).length, 1);
  await page.screenshot({ path: '/tmp/speak-off.png' });
  assert.is(await page.evaluate((id) => localStorage.getItem(`sc:speak:${id}`), botId), '0');
});

test('the floating window has the sound button beside close', async () => {
  const floating = await w.createBot({ appearance: { layout: 'floating', face: { textReplies: 'speak' } } });
  const page = await w.newPage();
  await page.goto(w.page(`/f${Math.random().toString(36).slice(2)}`, w.embed(floating)));
  await page.locator('button.l').click();
  await page.locator('.w.floating:not([hidden]) .fl .top .sound').waitFor();
  assert.is(await page.locator('.fl .top .ib').count(), 2);
  await page.screenshot({ path: '/tmp/speak-floating.png' });
});

test.run();
