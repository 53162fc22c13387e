/**
 * Replies rendered as Markdown in headless Chromium: formatting, links, wide tables, hostile replies from the
 * model and from a team member, and a reply streamed in small pieces never showing raw syntax on screen.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { framesOf, startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
let page: Page;

const RICH = 'Here is **your order** and *its* state:\n\n- Shipped `ORD-42`\n- [Track it](https://track.example/42)\n\n'
  + '| Item | Colour | Size | Quantity | Price each | Delivery window | Warehouse |\n|---|---|---|---|---|---|---|\n'
  + '| Widget deluxe | Ocean blue | Large | 2 | 10.00 EUR | Monday to Wednesday | Rotterdam north |\n\n'
  + '```\nnpm install widget --save-exact --registry https://registry.example.com\n```\nAnything else?';

const HOSTILE = '<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> [click](javascript:window.__xss=3) '
  + '<a href="javascript:window.__xss=4">a</a> ![p](https://tracker.example/p.gif) <iframe src="https://evil.example"></iframe> **<u>u</u>**';

test.before(async () => {
  w = await startWidgetWorld();
  const botId = await w.createBot({ appearance: { theme: { accent: '#0f766e', mode: 'light' } } });
  page = await w.openChat(botId, { path: '/md', viewport: { width: 1280, height: 900 } });
});
test.after(async () => { await w?.close(); });

/** Every text the reply bubble showed while it streamed, recorded on each change. */
async function watchReplies(p: Page) {
  await p.evaluate(() => {
    const root = document.querySelector('[data-service-chat]')!.shadowRoot!;
    (window as any).__seen = [];
    new MutationObserver(() => {
      root.querySelectorAll('.m.assistant:not(.welcome) .md').forEach((el) => {
        const clone = el.cloneNode(true) as HTMLElement;
        clone.querySelectorAll('pre').forEach((pre) => pre.remove());
        (window as any).__seen.push(clone.textContent);
      });
    }).observe(root, { subtree: true, childList: true, characterData: true });
  });
}

test('a reply streamed in small pieces shows formatting and never raw Markdown', async () => {
  await watchReplies(page);
  // Three characters per stream chunk: emphasis, links and table rows arrive cut in the middle.
  w.fake.script({ text: RICH.match(/[\s\S]{1,3}/g)! });
  await page.fill('.cp textarea', 'Where is my order?');
  await page.press('.cp textarea', 'Enter');
  const reply = page.locator('.m.assistant[data-role="assistant"]', { hasText: 'Anything else?' });
  await reply.waitFor();
  assert.ok((await framesOf(page, 'delta')).length > 20);
  const seen: string[] = await page.evaluate(() => (window as any).__seen);
  assert.ok(seen.length > 3, `${seen.length} states seen`);
  for (const s of seen) assert.not.match(s, /\*|\]\(|\||`/, `raw syntax on screen: ${s}`);
  assert.is(await reply.locator('strong').first().textContent(), 'your order');
  assert.is(await reply.locator('li code').textContent(), 'ORD-42');
  const link = reply.locator('a', { hasText: 'Track it' });
  assert.equal([await link.getAttribute('href'), await link.getAttribute('target'), await link.getAttribute('rel')], ['https://track.example/42', '_blank', 'noopener noreferrer']);
  // The wide table scrolls inside the bubble instead of widening it.
  const box = await reply.locator('.tw').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, tab: el.tabIndex }));
  assert.ok(box.scroll > box.client, `table ${box.scroll} px in ${box.client} px`);
  assert.is(box.tab, 0);
  const bubble = await reply.evaluate((el) => el.getBoundingClientRect().width);
  const list = await page.locator('.ms').evaluate((el) => el.clientWidth);
  assert.ok(bubble <= list, `bubble ${bubble} px in a ${list} px list`);
  await reply.locator('pre').evaluate((el) => el.scrollIntoView());
  await page.screenshot({ path: '/tmp/widget-markdown.png' });
});

test('HTML and scripts in a model reply are shown as text and nothing runs', async () => {
  w.fake.script({ text: HOSTILE });
  await page.fill('.cp textarea', 'Show me something');
  await page.press('.cp textarea', 'Enter');
  const reply = page.locator('.m.assistant[data-role="assistant"]', { hasText: 'onerror' });
  await reply.waitFor();
  await page.waitForTimeout(300);
  assert.is(await page.evaluate(() => (window as any).__xss), undefined);
  assert.is(await reply.locator('.md img, .md script, .md iframe, .md u, .md svg').count(), 0);
  assert.match(await reply.textContent() ?? '', '<img src=x onerror="window.__xss=1">');
  assert.match(await reply.textContent() ?? '', '<iframe src="https://evil.example"></iframe>');
  // Only the picture's web address became a link; the javascript: ones are plain words.
  assert.equal(await reply.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))), ['https://tracker.example/p.gif']);
});

test("a team member's reply is rendered the same way, and their HTML stays text", async () => {
  const conv = (await framesOf(page, 'conversation')).filter((f) => f.conversationId).pop();
  const as = (path: string, body?: unknown) => w.server.request('POST', `/api/v1/conversations/${conv.conversationId}${path}`, { headers: w.owner.headers, body });
  assert.is((await as('/takeover')).status, 200);
  assert.is((await as('/messages', { text: 'I checked: **it ships today**.\n\n1. Pack\n2. Send <img src=x onerror="window.__xss=5">' })).status, 201);
  const reply = page.locator('.m.human_agent', { hasText: 'it ships today' });
  await reply.waitFor();
  assert.is(await reply.locator('strong').textContent(), 'it ships today');
  assert.equal(await reply.locator('ol li').allTextContents(), ['Pack', 'Send <img src=x onerror="window.__xss=5">']);
  assert.is(await reply.locator('img').count(), 0);
  assert.is(await page.evaluate(() => (window as any).__xss), undefined);
  await page.screenshot({ path: '/tmp/widget-markdown-team.png' });
});

test.run();
