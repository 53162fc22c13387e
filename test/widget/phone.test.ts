/**
 * Phones: scrolling past the end of the messages does not scroll the shop behind the full-screen chat, and the
 * floating layout's caption shows a long reply in a box that scrolls, clear of the message box. Screenshots in
 * /tmp/shots/widget/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/widget';
const PHONE = { width: 390, height: 780 };
const TALL_PAGE = '<div style="height:4000px;background:linear-gradient(#f4f1ea,#c9b99a)">A long shop page</div>';
const LONG = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer about the returns policy.`).join('\n');

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

async function askLong(page: Page, waitIn: string) {
  w.fake.script({ text: LONG });
  await page.fill('.cp textarea', 'Tell me everything');
  await page.press('.cp textarea', 'Enter');
  await page.locator(waitIn, { hasText: 'Line 40 of' }).waitFor();
}

test('scrolling past the end of the messages leaves the page behind where it was', async () => {
  const botId = await w.createBot();
  const page = await w.openChat(botId, { path: '/phone-overscroll', extra: TALL_PAGE, viewport: PHONE, options: { hasTouch: true } });
  await askLong(page, '.m.assistant');
  const box = (await page.locator('.ms').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  // Up to the top of the list and past it, then down to the end and past it.
  for (const dy of [-4000, -4000, 4000, 4000, 4000]) await page.mouse.wheel(0, dy);
  await page.waitForFunction(() => {
    const ms = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.ms')!;
    return ms.scrollTop + ms.clientHeight >= ms.scrollHeight - 1;
  });
  assert.is(await page.evaluate(() => window.scrollY), 0, 'the shop did not scroll');
  assert.is(await page.locator('.ms').evaluate((el) => getComputedStyle(el).overscrollBehaviorY), 'contain');
});

test('the floating layout shows a long reply in a caption that scrolls, clear of the message box', async () => {
  const botId = await w.createBot({ appearance: { layout: 'floating', floating: { composer: true } } });
  for (const viewport of [PHONE, { width: 1280, height: 800 }]) {
    const page = await w.openChat(botId, { path: `/floating-long-${viewport.width}`, extra: TALL_PAGE, viewport });
    await askLong(page, '.cap');
    const cap = page.locator('.cap');
    const [c, composer] = await Promise.all([cap.boundingBox(), page.locator('.cp').boundingBox()]);
    assert.ok(c!.y + c!.height <= composer!.y + 1, `caption above the message box (${c!.y + c!.height} <= ${composer!.y})`);
    assert.ok(c!.y >= 0, 'caption on screen');
    // Every line of the reply is reachable: the caption's own content does not spill out, and it scrolls.
    const sizes = await cap.evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight, overflow: getComputedStyle(el).overflowY }));
    assert.is(sizes.overflow, 'auto');
    assert.ok(sizes.scroll > sizes.client, `long reply scrolls (${sizes.scroll} > ${sizes.client})`);
    // On a phone the caption takes the room the face and the message box leave (it was held to 40%: a third of a reply).
    if (viewport === PHONE) assert.ok(c!.height >= viewport.height * 0.5, `the caption uses the room there is (${c!.height} px of ${viewport.height})`);
    await page.mouse.move(c!.x + c!.width / 2, c!.y + c!.height / 2);
    await page.mouse.wheel(0, 600);
    await page.waitForFunction(() => document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.cap')!.scrollTop > 0);
    const lastLine = await cap.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
      const r = document.createRange();
      r.selectNodeContents(el.querySelector('.md')!);
      return { bottom: r.getBoundingClientRect().bottom, capBottom: el.getBoundingClientRect().bottom };
    });
    assert.ok(lastLine.bottom <= lastLine.capBottom + 1, 'the last line shows inside the caption');
    assert.is(await page.evaluate(() => window.scrollY), 0, 'the shop did not scroll');
    await page.screenshot({ path: `${SHOTS}/phone-floating-${viewport.width}.png` });
  }
});

test.run();
