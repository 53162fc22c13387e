/**
 * Keyboard use and the visual defects of issue 23 in headless Chromium: contrast of text and icons on any accent,
 * the inline layout leaving the host page alone on load, the tab launcher beside the open window, the greeting in
 * dark mode, the message box growing, Escape, focus return, the launcher's state and the menu's keys.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ElementHandle, Page } from 'playwright-core';
import { accentColours } from '../../widget/src/theme.js';
import { startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
let botId: string;

test.before(async () => {
  w = await startWidgetWorld();
  botId = await w.createBot({
    greeting: { enabled: true, delayMs: 0, text: 'Need a hand?', frequency: 'always' },
    behavior: { handoff: { enabled: true } },
  });
});
test.after(async () => { await w?.close(); });

function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
const hex = (h: string) => `rgb(${parseInt(h.slice(1, 3), 16)}, ${parseInt(h.slice(3, 5), 16)}, ${parseInt(h.slice(5, 7), 16)})`;
/** The element inside the widget's shadow root that has focus (its class), or 'page' when focus left the widget. */
const focusedIn = (page: Page) => page.evaluate(() => {
  const host = document.querySelector('[data-service-chat]');
  return document.activeElement === host ? (host!.shadowRoot!.activeElement as HTMLElement | null)?.className ?? 'none' : 'page';
});

test('text and icons on the accent reach 4.5:1 for every accent colour a site can pick', () => {
  // Every 17th step of each channel: 4096 colours across the whole cube.
  let worst = 21;
  for (let r = 0; r < 256; r += 17) for (let g = 0; g < 256; g += 17) for (let b = 0; b < 256; b += 17) {
    const accent = `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    const { fill, on } = accentColours(accent);
    worst = Math.min(worst, contrast(hex(fill), on === '#000' ? 'rgb(0,0,0)' : 'rgb(255,255,255)'));
  }
  assert.ok(worst >= 4.5, `worst ${worst.toFixed(2)}:1`);
});

for (const [accent, mode] of [['#fde047', 'light'], ['#0f766e', 'dark'], ['#6366f1', 'light'], ['#777777', 'dark']] as const) {
  test(`the send arrow, title and subtitle read well on accent ${accent} (${mode})`, async () => {
    const page = await w.newPage();
    await page.goto(w.page(`/c${accent.slice(1)}`, w.embed(botId)));
    await page.evaluate(([a, m]) => (window as any).ServiceChat.boot({ botId: document.querySelector('script[data-bot-id]')!.getAttribute('data-bot-id'), theme: { accent: a, mode: m }, open: true }), [accent, mode]);
    await page.locator('.w.panel:not([hidden]) .cp textarea').waitFor();
    const colour = (sel: string) => page.locator(sel).evaluate((el) => getComputedStyle(el).color);
    const bg = await page.locator('.cp .send').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.is(bg, hex(accentColours(accent).fill));
    for (const sel of ['.cp .send', '.hd b', '.hd small']) {
      const ratio = contrast(await colour(sel), bg);
      assert.ok(ratio >= 4.5, `${sel} ${ratio.toFixed(2)}:1 on ${accent}`);
    }
    const opacity = await page.locator('.hd small').evaluate((el) => getComputedStyle(el).opacity);
    assert.is(opacity, '1');
  });
}

test('replies carry their time, and secondary text reads at 4.5:1 or better in light and dark', async () => {
  for (const mode of ['light', 'dark']) {
    const page = await w.newPage();
    await page.goto(w.page(`/times-${mode}`, w.embed(botId)));
    await page.evaluate(([id, m]) => (window as any).ServiceChat.boot({ botId: id, theme: { mode: m }, open: true }), [botId, mode]);
    w.fake.script({ text: 'It ships today.' });
    await page.fill('.cp textarea', 'When does it ship?');
    await page.press('.cp textarea', 'Enter');
    const reply = page.locator('.m.assistant', { hasText: 'It ships today.' });
    await reply.locator('time').waitFor();
    const when = await reply.locator('time').getAttribute('datetime');
    assert.ok(Math.abs(Date.parse(when!) - Date.now()) < 60_000, `${when}`);
    assert.match(await reply.locator('time').textContent() ?? '', /\d{1,2}[:.]\d{2}/);
    assert.is(await page.locator('.m.user time').count(), 1);
    const [fg, bg] = await reply.locator('time').evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el.parentElement!).backgroundColor]);
    assert.ok(contrast(fg, bg) >= 4.5, `${mode}: time ${contrast(fg, bg).toFixed(2)}:1`);
    const [ufg, ubg] = await page.locator('.m.user time').evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el.parentElement!).backgroundColor]);
    assert.ok(contrast(ufg, ubg) >= 4.5, `${mode}: time on accent ${contrast(ufg, ubg).toFixed(2)}:1`);
    await page.screenshot({ path: `/tmp/widget-times-${mode}.png` });
    await page.context().close();
  }
});

test('the inline layout neither takes focus nor scrolls the host page when it loads', async () => {
  const page = await w.newPage();
  const html = w.embed(botId, { layout: 'inline', target: '#chat' }, '<div style="height:1400px">Long article</div><div id="chat" style="height:500px"></div>');
  await page.goto(w.page('/inline-long', html));
  await page.locator('.w.inline .cp textarea').waitFor();
  await page.waitForTimeout(300);
  assert.is(await page.evaluate(() => window.scrollY), 0);
  assert.is(await focusedIn(page), 'page');
});

test('the tab launcher stays visible and clickable beside the open panel', async () => {
  const page = await w.newPage();
  await page.goto(w.page('/tab', w.embed(botId)));
  await page.evaluate((id) => (window as any).ServiceChat.boot({ botId: id, launcher: { type: 'tab', edge: 'right', align: 'end', label: 'Questions? Chat with us' } }), botId);
  await page.click('button.l.tab');
  await page.locator('.w.panel:not([hidden])').waitFor();
  // The script tag's own boot and this boot() overlapped: only the latest one draws.
  assert.is(await page.locator('[data-service-chat]').count(), 1);
  const tab = (await page.locator('button.l.tab').boundingBox())!;
  const panel = (await page.locator('.w.panel').boundingBox())!;
  assert.ok(panel.x + panel.width <= tab.x, `panel ends at ${panel.x + panel.width}, tab starts at ${tab.x}`);
  const hit = await page.evaluate(([x, y]) => (document.querySelector('[data-service-chat]')!.shadowRoot!.elementFromPoint(x, y) as HTMLElement).className, [tab.x + tab.width / 2, tab.y + 10]);
  assert.match(hit, 'tab');
  await page.screenshot({ path: '/tmp/widget-tab-open.png' });
  await page.click('button.l.tab');
  await page.locator('.w.panel[hidden]').waitFor({ state: 'attached' });
});

test('the greeting bubble is dark in dark mode', async () => {
  const page = await w.newPage();
  await page.goto(w.page('/dark-greeting', w.embed(botId)));
  await page.evaluate((id) => (window as any).ServiceChat.boot({ botId: id, theme: { mode: 'dark' } }), botId);
  const teaser = page.locator('.t');
  await teaser.waitFor();
  const [bg, fg] = await teaser.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
  assert.is(bg, 'rgb(31, 41, 55)');
  assert.ok(contrast(bg, fg) >= 4.5);
  await page.screenshot({ path: '/tmp/widget-greeting-dark.png' });
});

test('the message box grows with long text up to a limit and shrinks when the message is sent', async () => {
  const page = await w.openChat(botId, { path: '/grow' });
  const box = page.locator('.cp textarea');
  const h0 = (await box.boundingBox())!.height;
  // The box is sized by an effect after the render (Preact runs it after the next frame): on a busy machine the
  // size is read once that effect has run for the text in the box, not at once.
  const sized = async () => page.waitForFunction((el) => el.style.height === `${el.scrollHeight + 2}px`, await box.elementHandle() as ElementHandle<HTMLTextAreaElement>);
  await box.fill('A question with several lines. '.repeat(6));
  await sized();
  const h1 = (await box.boundingBox())!.height;
  await box.fill('A very long question. '.repeat(60));
  await sized();
  const h2 = (await box.boundingBox())!.height;
  assert.ok(h1 > h0 + 20, `${h0} -> ${h1}`);
  assert.ok(h2 <= 120 && h2 >= h1, `capped at ${h2}`);
  await page.screenshot({ path: '/tmp/widget-composer-grown.png' });
  w.fake.script({ text: 'Noted.' });
  await box.press('Enter');
  await page.locator('.m.assistant', { hasText: 'Noted.' }).waitFor();
  assert.ok(Math.abs((await box.boundingBox())!.height - h0) < 2);
});

test('keyboard only: open from the launcher, drive the menu with arrows, Escape closes the menu then the chat', async () => {
  const page = await w.newPage();
  await page.goto(w.page('/keys', w.embed(botId)));
  const launcher = page.locator('button.l');
  await launcher.waitFor();
  assert.equal([await launcher.getAttribute('aria-expanded'), await launcher.getAttribute('aria-label')], ['false', 'Open chat']);
  await launcher.focus();
  await page.keyboard.press('Enter');
  await page.locator('.w.panel:not([hidden])').waitFor();
  await page.waitForTimeout(100);
  assert.is(await focusedIn(page), '');
  assert.is(await page.evaluate(() => (document.querySelector('[data-service-chat]')!.shadowRoot!.activeElement as HTMLElement).tagName), 'TEXTAREA');
  assert.equal([await launcher.getAttribute('aria-expanded'), await launcher.getAttribute('aria-label')], ['true', 'Close chat']);

  await page.locator('.mb').focus();
  await page.keyboard.press('Enter');
  const items = page.locator('.menu [role=menuitem]');
  await items.first().waitFor();
  const active = () => page.evaluate(() => (document.querySelector('[data-service-chat]')!.shadowRoot!.activeElement as HTMLElement).textContent);
  assert.is(await active(), 'New conversation');
  await page.keyboard.press('ArrowDown');
  assert.is(await active(), 'Download transcript');
  await page.keyboard.press('End');
  assert.is(await active(), 'Talk to a person');
  await page.keyboard.press('ArrowDown');
  assert.is(await active(), 'New conversation', 'arrows wrap around');
  await page.keyboard.press('ArrowUp');
  assert.is(await active(), 'Talk to a person');
  await page.keyboard.press('Escape');
  assert.is(await page.locator('.menu').count(), 0);
  assert.ok(await page.locator('.w.panel:not([hidden])').isVisible(), 'the first Escape closes only the menu');
  assert.match(await focusedIn(page), 'mb');
  assert.is(await page.locator('.mb').getAttribute('aria-expanded'), 'false');

  await page.keyboard.press('Escape');
  await page.locator('.w.panel[hidden]').waitFor({ state: 'attached' });
  assert.match(await focusedIn(page), 'l bubble');
  assert.equal([await launcher.getAttribute('aria-expanded'), await launcher.getAttribute('aria-label')], ['false', 'Open chat']);
  // The close button returns focus to the launcher as well.
  await page.keyboard.press('Enter');
  await page.locator('.w.panel:not([hidden])').waitFor();
  await page.locator('.hd .close').click();
  await page.locator('.w.panel[hidden]').waitFor({ state: 'attached' });
  assert.match(await focusedIn(page), 'l bubble');
});

test('a loader cached from before a deploy, naming a chat bundle that is gone, loads the plain chat.js', async () => {
  const page = await w.newPage();
  await page.route(/\/chat\.[0-9a-f]{10}\.js$/, (r) => r.fulfill({ status: 404, body: 'gone' }));
  await page.goto(w.page('/old-loader', w.embed(botId)));
  await page.click('button.l');
  await page.locator('.w.panel:not([hidden]) .cp textarea').waitFor();
  assert.ok(await page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/static/widget/chat.js'))));
});

test.run();
