/**
 * Every layout in light and dark, on a desktop and a phone, with a formatted reply: the window fits the screen,
 * the page does not scroll sideways, the reply's text is readable on its bubble, and a screenshot of each is written
 * to /tmp/widget-matrix-<layout>-<theme>-<device>.png to be looked at.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
let botId: string;
test.before(async () => {
  w = await startWidgetWorld();
  botId = await w.createBot({ appearance: { floating: { composer: true } } });
});
test.after(async () => { await w?.close(); });

const DEVICES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const REPLY = 'We have **three plans**:\n\n| Plan | Price |\n|---|---|\n| Basic | 10 EUR |\n| Pro | 20 EUR |\n\nSee [pricing](https://example.com/pricing).';

for (const layout of ['panel', 'drawer', 'floating', 'inline'] as const) {
  for (const mode of ['light', 'dark'] as const) {
    for (const device of ['desktop', 'phone'] as const) {
      test(`${layout}, ${mode}, ${device}: fits the screen and shows a formatted reply`, async () => {
        // A phone-sized window with touch (the host page has no viewport meta, so isMobile would lay it out 980 px wide).
        const page = await w.newPage(DEVICES[device], { hasTouch: device === 'phone' });
        const inline = layout === 'inline';
        const html = w.embed(botId, inline ? { layout, target: '#chat' } : { layout }, inline ? '<div id="chat" style="height:560px;max-width:480px"></div>' : '');
        await page.goto(w.page(`/m-${layout}-${mode}-${device}`, html));
        await page.waitForFunction(() => (window as any).ServiceChat?.boot);
        await page.evaluate(([id, l, m]) => (window as any).ServiceChat.boot({ botId: id, layout: l, target: l === 'inline' ? '#chat' : undefined, theme: { mode: m }, open: true }), [botId, layout, mode]);
        const win = page.locator(`.w.${layout}:not([hidden])`);
        await win.waitFor();
        w.fake.script({ text: REPLY });
        await page.fill('.cp textarea', 'What plans do you have?');
        await page.press('.cp textarea', 'Enter');
        if (layout === 'floating') await page.locator('.cap', { hasText: 'See pricing' }).waitFor();
        else await page.locator('.m.assistant', { hasText: 'See pricing' }).waitFor();
        await page.waitForTimeout(100);
        const box = (await win.boundingBox())!;
        const vp = DEVICES[device];
        assert.ok(box.x >= -1 && box.y >= -1 && box.x + box.width <= vp.width + 1 && box.y + box.height <= vp.height + 1, `window ${JSON.stringify(box)} in ${vp.width}x${vp.height}`);
        assert.ok(await page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth), 'the page does not scroll sideways');
        const sel = layout === 'floating' ? '.cap' : '.m.assistant:not(.welcome)';
        const strong = page.locator(`${sel} strong`).last();
        assert.is(await strong.textContent(), 'three plans');
        await page.screenshot({ path: `/tmp/widget-matrix-${layout}-${mode}-${device}.png` });
        await page.context().close();
      });
    }
  }
}

test.run();
