/**
 * Bytes on opening (issue 36): everything the chat's first open brings over the wire, compressed as Chromium gets
 * it (brotli), headers included, stays under 40 KB. The Markdown lexer is not part of it: it is fetched when the
 * visitor starts typing, before the reply streams, and a reply with Markdown is drawn formatted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page, Request } from 'playwright-core';
import { startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

/** Records every request of the page from now on, with its bytes on the wire once it has finished. */
function wire(page: Page) {
  const seen: Request[] = [];
  const done = new Map<Request, number>();
  page.on('request', (r) => seen.push(r));
  page.on('requestfinished', async (r) => { const s = await r.sizes(); done.set(r, s.responseBodySize + s.responseHeadersSize); });
  page.on('requestfailed', (r) => done.set(r, 0));
  return {
    settled: () => seen.every((r) => done.has(r)),
    bytes: () => [...done.values()].reduce((a, b) => a + b, 0),
    urls: () => seen.map((r) => r.url()),
  };
}

test('opening the chat brings under 40 KB over the wire; the Markdown renderer comes when the visitor types', async () => {
  const botId = await w.createBot();
  const page = await w.newPage();
  await page.goto(w.page('/bytes', w.embed(botId)));
  await page.locator('button.l').waitFor();
  await page.waitForLoadState('networkidle');
  const net = wire(page);
  await page.click('button.l');
  // Open: the message box takes typing, the face is drawn, the socket is ready and nothing is still arriving.
  await page.locator('.w.panel:not([hidden]) .cp textarea').waitFor();
  await page.locator('.fc svg').waitFor();
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'ready'));
  for (const deadline = Date.now() + 5000; !net.settled() && Date.now() < deadline;) await page.evaluate(() => new Promise(requestAnimationFrame));
  assert.ok(net.settled(), 'every request finished');
  const opening = net.bytes();
  console.log(`  opening: ${opening} bytes on the wire: ${net.urls().map((u) => u.split('/').pop()).join(', ')}`);
  assert.ok(opening < 40 * 1024, `opening brought ${opening} bytes`);
  assert.not.ok(net.urls().some((u) => /chat-markdown/.test(u)), 'the Markdown renderer is not part of opening');

  await page.locator('.cp textarea').pressSequentially('Show me');
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /chat-markdown\.[0-9a-f]{10}\.js$/.test(e.name)));
  w.fake.script({ text: 'The **Pro** plan:\n\n1. `fast`\n2. [docs](https://example.com)' });
  await page.press('.cp textarea', 'Enter');
  const reply = page.locator('.m.assistant', { hasText: 'plan' });
  await reply.locator('strong', { hasText: 'Pro' }).waitFor();
  await reply.locator('ol li code', { hasText: 'fast' }).waitFor();
  assert.is(await reply.locator('a').getAttribute('href'), 'https://example.com');
  assert.not.match(await reply.textContent() ?? '', '**');
});

test('a welcome with Markdown is drawn formatted on opening (the renderer is fetched for it)', async () => {
  const botId = await w.createBot({ welcome: { message: 'Hello! Ask about **prices** or `orders`.' } });
  const page = await w.newPage();
  await page.goto(w.page('/bytes-welcome', w.embed(botId)));
  await page.click('button.l');
  const welcome = page.locator('.m.welcome');
  await welcome.locator('strong', { hasText: 'prices' }).waitFor();
  await welcome.locator('code', { hasText: 'orders' }).waitFor();
  assert.not.match(await welcome.textContent() ?? '', '**');
});

test.run();
