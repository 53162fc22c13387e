/**
 * A paused bot in the widget: the visitor reads that the assistant is unavailable (not "Connection lost.
 * Reconnecting…"), the widget does not loop on reconnecting, a message typed meanwhile stays in the box with a
 * line saying why, and once the bot runs again the chat comes back by itself.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import WebSocket from 'ws';
import { startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/widget';
let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); mkdirSync(SHOTS, { recursive: true }); });
test.after(async () => { await w?.close(); });

const setStatus = async (botId: string, status: 'running' | 'paused') => {
  const r = await w.server.request('POST', `/api/v1/bots/${botId}/status`, { body: { status }, headers: w.owner.headers });
  assert.is(r.status, 200);
};

test('the server opens a paused bot\'s socket only to refuse it: an error frame, then close code 4503', async () => {
  const botId = await w.createBot();
  await setStatus(botId, 'paused');
  const ws = new WebSocket(`${w.server.url.replace(/^http/, 'ws')}/widget/v1/chat?botId=${botId}`);
  const frames: any[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(String(d))));
  const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
  assert.is(code, 4503);
  assert.is(frames.length, 1);
  assert.is(frames[0].t, 'error');
  assert.is(frames[0].code, 'forbidden');
  assert.match(frames[0].message, /paused/);
});

test('a visitor of a paused bot sees it is unavailable, keeps what they typed, and the chat returns when the bot runs again', async () => {
  const botId = await w.createBot();
  await setStatus(botId, 'paused');
  const page = await w.newPage();
  await page.clock.install();
  await page.goto(w.page('/paused', w.embed(botId)));
  await page.click('button.l');
  const unavailable = page.locator('.line.offline.paused', { hasText: 'This assistant is unavailable right now' });
  await unavailable.waitFor();
  // Half a minute later the widget has not tried again and again, and never said the connection was lost.
  await page.clock.runFor(30_000);
  assert.is(await page.evaluate(() => (window as any).__urls.length), 1, 'one connection attempt, no reconnect loop');
  assert.is(await page.getByText('Connection lost').count(), 0);

  await page.fill('.cp textarea', 'Are you open on Sunday?');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.line.error', { hasText: 'Your message is still in the box' }).waitFor();
  assert.is(await page.inputValue('.cp textarea'), 'Are you open on Sunday?');
  assert.is(await page.evaluate(() => (window as any).__sent.filter((f: any) => f.t === 'message').length), 0);
  await page.screenshot({ path: `${SHOTS}/paused-bot.png` });

  // Resumed: the next quiet check connects, the notice goes, and the kept text can be sent.
  await setStatus(botId, 'running');
  await page.clock.runFor(61_000);
  await unavailable.waitFor({ state: 'detached' });
  w.fake.script({ text: 'Yes, from 10 to 4.' });
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Yes, from 10 to 4.' }).waitFor();
  assert.is(await page.inputValue('.cp textarea'), '');
});

test.run();
