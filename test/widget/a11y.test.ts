/**
 * Keyboard and screen readers: Tab stays inside a modal window (the modal drawer, the full-screen phone chat),
 * which says aria-modal; closing gives the keyboard back to where it was when there is no launcher; the message
 * list scrolls by keyboard; each message says who spoke; "Not sent" and an image count read in dark mode (axe).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { startWidgetWorld, widgetSettled, type WidgetWorld } from './world.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = '/tmp/shots/widget';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const PAGE_LINKS = '<p><a href="#a">First page link</a> <a href="#b">Second page link</a></p>';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

/**
 * axe's colour-contrast findings inside the widget, once its window has finished fading in (axe blends a
 * half-transparent window's colours with the page: a slow machine measured mid-animation otherwise).
 */
const contrastProblems = async (page: Page): Promise<string[]> => {
  await widgetSettled(page);
  return page.evaluate(async () => {
    const r = await (window as any).axe.run({ include: [['[data-service-chat]']] }, { runOnly: { type: 'rule', values: ['color-contrast'] }, resultTypes: ['violations'] });
    return r.violations.flatMap((v: any) => v.nodes.map((n: any) => `${JSON.stringify(n.target)}: ${n.any?.[0]?.message ?? ''}`));
  });
};

/** Whether the keyboard is inside the widget (focus in its shadow root shows as its host element). */
const inWidget = (page: Page) => page.evaluate(() => document.activeElement?.hasAttribute('data-service-chat') ?? false);

for (const [name, viewport, patch] of [
  ['the full-screen phone chat', { width: 390, height: 780 }, {}],
  ['the modal drawer', { width: 1280, height: 800 }, { appearance: { layout: 'drawer', drawer: { modal: true } } }],
] as const) {
  test(`Tab and Shift+Tab stay inside ${name}, which is aria-modal, and Escape gives focus back to the launcher`, async () => {
    const botId = await w.createBot(patch);
    const page = await w.openChat(botId, { path: `/trap-${viewport.width}`, extra: PAGE_LINKS, viewport });
    assert.is(await page.locator('.w[role=dialog]').getAttribute('aria-modal'), 'true');
    for (const key of ['Tab', 'Shift+Tab']) {
      for (let i = 0; i < 14; i++) {
        await page.keyboard.press(key);
        assert.ok(await inWidget(page), `${key} #${i + 1} left the window for ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))}`);
      }
    }
    await page.keyboard.press('Escape');
    await page.locator('.w[role=dialog]').waitFor({ state: 'hidden' });
    assert.ok(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.classList.contains('l')), 'the launcher has focus');
  });
}

test('without a launcher, closing gives the keyboard back to the page control that opened the chat', async () => {
  const botId = await w.createBot({ appearance: { launcher: { type: 'none' } } });
  const page = await w.newPage();
  await page.goto(w.page('/no-launcher', w.embed(botId, {}, '<button id="help" onclick="ServiceChat.open()">Help</button>')));
  await page.waitForFunction(() => (window as any).ServiceChat?.isOpen && document.querySelector('[data-service-chat]'));
  await page.focus('#help');
  await page.keyboard.press('Enter');
  await page.locator('.cp textarea').waitFor();
  await page.waitForFunction(() => document.activeElement?.hasAttribute('data-service-chat'));
  await page.keyboard.press('Escape');
  await page.locator('.w[role=dialog]').waitFor({ state: 'hidden' });
  assert.is(await page.evaluate(() => document.activeElement?.id), 'help');
});

test('the message list scrolls by keyboard and each message says who spoke', async () => {
  const botId = await w.createBot({ behavior: { feedback: { thumbs: false } } });
  const page = await w.openChat(botId, { path: '/list-keys', viewport: { width: 1280, height: 700 } });
  w.fake.script({ text: Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n') });
  await page.fill('.cp textarea', 'Tell me all of it');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Line 40' }).waitFor();
  // Shift+Tab from the message box reaches the list (no link or button inside it), and Page Up scrolls it.
  const focused = () => page.evaluate(() => document.querySelector('[data-service-chat]')!.shadowRoot!.activeElement?.className);
  for (let i = 0; i < 4 && await focused() !== 'ms'; i++) await page.keyboard.press('Shift+Tab');
  const list = page.locator('.ms');
  assert.is(await focused(), 'ms');
  const before = await list.evaluate((el) => el.scrollTop);
  await page.keyboard.press('PageUp');
  await page.waitForFunction((b) => document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.ms')!.scrollTop < b, before);
  assert.is(await list.getAttribute('role'), 'log');
  assert.is(await list.getAttribute('aria-label'), 'Messages');
  // What a screen reader reads for each message starts with who said it.
  assert.match(await page.locator('.m.user').last().textContent() ?? '', /^You: Tell me all of it/);
  assert.match(await page.locator('.m.assistant:not(.welcome)').last().textContent() ?? '', /^Ava: Line 1/);
  await page.screenshot({ path: `${SHOTS}/a11y-list-focus.png` });
});

test('"Not sent" and the image count on the visitor\'s bubble are readable in dark mode (axe colour contrast)', async () => {
  // One message a minute: the second is refused and shows "Not sent".
  const limited = await w.createBot({ appearance: { theme: { mode: 'dark' } }, security: { rateLimits: { messagesPerMinute: 1 } } });
  const page = await w.openChat(limited, { path: '/dark-failed' });
  w.fake.script({ text: 'Hello!' });
  await page.fill('.cp textarea', 'Hi');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Hello!' }).waitFor();
  await page.fill('.cp textarea', 'Just tell me the price');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.user.failed').waitFor();
  await page.evaluate(AXE + '\n;0');
  assert.equal(await contrastProblems(page), [], 'Not sent');
  await page.screenshot({ path: `${SHOTS}/a11y-dark-failed.png` });

  // The images a visitor sent show as a count when their previews are gone (after a reload, or camera pictures).
  const botId = await w.createBot({ appearance: { theme: { mode: 'dark' } } });
  const p2 = await w.openChat(botId, { path: '/dark-counted' });
  await p2.setInputFiles('.cp input[type=file]', { name: 'dot.png', mimeType: 'image/png', buffer: PNG });
  await p2.locator('.th img:not(.up)').waitFor();
  w.fake.script({ text: 'Nice picture.' });
  await p2.fill('.cp textarea', 'Here is a photo');
  await p2.press('.cp textarea', 'Enter');
  await p2.locator('.m.assistant', { hasText: 'Nice picture.' }).waitFor();
  await p2.reload();
  await p2.click('button.l');
  await p2.locator('.m.user .who', { hasText: /^1 image$/ }).waitFor();
  await p2.evaluate(AXE + '\n;0');
  assert.equal(await contrastProblems(p2), [], 'image count');
  await p2.screenshot({ path: `${SHOTS}/a11y-dark-counted.png` });
});

test.run();
