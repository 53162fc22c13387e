/**
 * Work after close: a closed chat window's face stops animating (main-thread time measured with Chromium's
 * Performance metrics, as before the first open), and a visitor who has opened the chat is not greeted again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

/** Main-thread milliseconds a second (Chromium's TaskDuration) over a one-second measuring window. */
async function busyMsPerSecond(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const task = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value;
  const t0 = await task();
  const started = Date.now();
  // The measuring window (not a wait for a condition): one second of the page running on its own.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 1000)));
  const ms = ((await task()) - t0) * 1000;
  await cdp.detach();
  return ms / ((Date.now() - started) / 1000);
}

test('a closed chat window costs about what the page did before the chat was first opened', async () => {
  const botId = await w.createBot();
  const page = await w.newPage();
  await page.goto(w.page('/after-close', w.embed(botId)));
  await page.locator('button.l').waitFor();
  const before = await busyMsPerSecond(page);
  await page.click('button.l');
  await page.locator('.fc svg').waitFor();
  const open = await busyMsPerSecond(page);
  await page.keyboard.press('Escape');
  await page.locator('.w[role=dialog]').waitFor({ state: 'hidden' });
  const frame = () => page.evaluate(() => JSON.stringify((document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as any).face.frame));
  const atClose = await frame();
  const closed = await busyMsPerSecond(page);
  // Not one drawing in that second (an animating face breathes ten times a second and blinks).
  assert.is(await frame(), atClose, 'the closed face did not move');
  console.log(`main thread ms/s: before opening ${before.toFixed(1)}, open ${open.toFixed(1)}, closed ${closed.toFixed(1)}`);
  assert.ok(open > closed, 'the open face does work the closed one does not');
  assert.ok(closed <= Math.max(3, before * 2), `closed: ${closed.toFixed(1)} ms/s (before opening: ${before.toFixed(1)})`);
  // Opened again, the face moves again.
  await page.click('button.l');
  const first = await frame();
  await page.waitForFunction((f) => JSON.stringify((document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as any).face.frame) !== f, first);
});

test('after a visitor has opened the chat and closed it, the greeting does not pop up again', async () => {
  const botId = await w.createBot({ greeting: { enabled: true, delayMs: 0, text: 'Need a hand?', frequency: 'always' } });
  const page = await w.newPage();
  const url = w.page('/greet-again', w.embed(botId));
  await page.goto(url);
  await page.locator('.t', { hasText: 'Need a hand?' }).waitFor();
  await page.click('button.l');
  w.fake.script({ text: 'Happy to help.' });
  await page.fill('.cp textarea', 'Hi');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Happy to help.' }).waitFor();
  await page.keyboard.press('Escape');
  await page.reload();
  await page.locator('button.l').waitFor();
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  assert.is(await page.locator('.t').count(), 0, 'no greeting for a visitor who has chatted');
});

test.run();
