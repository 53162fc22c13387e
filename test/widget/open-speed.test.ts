/**
 * What makes opening fast (timed by bench/widget-open.ts, not here): the loader fetches and evaluates chat.js when
 * a pointer reaches the launcher or it gets keyboard focus, without drawing or connecting anything, and the click
 * then ends in a focused message box that takes typing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test('the chat bundle is fetched when the pointer reaches the launcher, and the click ends in a focused message box', async () => {
  const botId = await w.createBot();
  const page = await w.newPage();
  const chatLoads: string[] = [];
  page.on('request', (r) => { if (/\/static\/widget\/chat\.[^/]*js$/.test(r.url())) chatLoads.push(r.url()); });
  await page.goto(w.page('/hover', w.embed(botId)));
  await page.locator('button.l').waitFor();
  assert.is(chatLoads.length, 0, 'nothing but the loader before the visitor comes near');
  await page.locator('button.l').hover();
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /\/static\/widget\/chat\.[^/]*js$/.test(e.name)));
  assert.is(chatLoads.length, 1, 'chat.js fetched on hover');
  assert.is(await page.locator('.cp textarea').count(), 0, 'nothing drawn before the click');
  assert.ok(!(await page.evaluate(() => (window as any).__urls.length)), 'no socket before the click');
  await page.locator('button.l').click();
  await page.waitForFunction(() => {
    const box = document.querySelector('[data-service-chat]')!.shadowRoot!.activeElement as HTMLTextAreaElement | null;
    return box?.tagName === 'TEXTAREA' && !box.disabled && box.offsetHeight > 0;
  });
  await page.fill('.cp textarea', 'typing works');
  assert.is(await page.inputValue('.cp textarea'), 'typing works');
});

test.run();
