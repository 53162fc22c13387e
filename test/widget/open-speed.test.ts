/**
 * What makes opening fast (timed by bench/widget-open.ts, not here): the loader fetches and evaluates chat.js when
 * a pointer reaches the launcher or it gets keyboard focus, without drawing or connecting anything, and the click
 * then ends in a focused message box that takes typing. The chat's optional parts (voice UI, spoken replies, camera)
 * are fetched beside chat.js, not after it, and only for bots that turn them on.
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

const PART = /\/static\/widget\/chat-(voice|speak|camera)\.[^/]*js$/;

test('a plain bot loads none of the optional parts; a bot with voice, spoken replies and the camera fetches them with chat.js', async () => {
  const plain = await w.createBot();
  const page = await w.newPage();
  const parts: string[] = [];
  page.on('request', (r) => { if (PART.test(r.url())) parts.push(r.url()); });
  await page.goto(w.page('/plain-parts', w.embed(plain)));
  await page.locator('button.l').click();
  await page.locator('.w.panel:not([hidden]) .cp textarea').waitFor();
  assert.equal(parts, [], 'no optional part for a bot that turns none on');
  assert.is(await page.locator('.cp .mic, .cp .cam, .hd .sound').count(), 0);

  const rich = await w.createBot({
    voice: { enabled: true, mode: 'realtime' },
    vision: { webcam: { enabled: true } },
    appearance: { face: { textReplies: 'speak' } },
  });
  const page2 = await w.newPage();
  await page2.goto(w.page('/rich-parts', w.embed(rich)));
  await page2.locator('button.l').hover();
  // A resource's entry comes when it has arrived: the parts' may come before chat.js's, which is bigger.
  await page2.waitForFunction(() => {
    const names = performance.getEntriesByType('resource').map((e) => e.name);
    return names.filter((n) => /chat-(voice|speak|camera)\./.test(n)).length === 3 && names.some((n) => /\/chat\.[0-9a-f]{10}\.js$/.test(n));
  });
  // Fetched in parallel: each part's request starts before chat.js has finished arriving.
  const timing = await page2.evaluate(() => performance.getEntriesByType('resource').map((e) => [e.name, e.startTime, (e as PerformanceResourceTiming).responseEnd] as const));
  const chat = timing.find(([name]) => /\/chat\.[0-9a-f]{10}\.js$/.test(name))!;
  for (const [name, start] of timing.filter(([name]) => PART.test(name))) assert.ok(start < chat[2], `${name} requested after chat.js arrived`);
  await page2.locator('button.l').click();
  await page2.locator('.w.panel:not([hidden]) .cp textarea').waitFor();
  assert.equal(await Promise.all(['.cp .mic', '.cp .cam', '.hd .sound'].map((sel) => page2.locator(sel).count())), [1, 1, 1]);
});

test('a loader cached from before a deploy, naming a part that is gone, loads its plain name; a part that cannot load leaves the chat without it', async () => {
  const voiceBot = await w.createBot({ voice: { enabled: true, mode: 'realtime' } });
  const page = await w.newPage();
  await page.route(/\/chat-voice\.[0-9a-f]{10}\.js$/, (r) => r.fulfill({ status: 404, body: 'gone' }));
  await page.goto(w.page('/old-parts', w.embed(voiceBot)));
  await page.click('button.l');
  await page.locator('.w.panel:not([hidden]) .cp .mic').waitFor();
  assert.ok(await page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/static/widget/chat-voice.js'))));

  const page2 = await w.newPage();
  await page2.route(/\/chat-voice\.[^/]*js$/, (r) => r.fulfill({ status: 503, body: 'down' }));
  await page2.goto(w.page('/no-parts', w.embed(voiceBot)));
  await page2.click('button.l');
  await page2.locator('.w.panel:not([hidden]) .cp textarea').waitFor();
  assert.is(await page2.locator('.cp .mic').count(), 0, 'no microphone without its part');
  const events = await page2.evaluate(() => new Promise((resolve) => { (window as any).ServiceChat.on('voice', resolve); (window as any).ServiceChat.startVoice(); }));
  assert.equal(events, { state: 'ended', reason: 'load_failed' });
});

test('a loader from before the parts were split off (mount given no parts) gets them from chat.js itself', async () => {
  const voiceBot = await w.createBot({ voice: { enabled: true, mode: 'realtime' } });
  const page = await w.newPage();
  // Today's loader, made to call mount() as the older one did: without the parts.
  await page.route(/\/static\/widget\/loader\.js$/, async (r) => {
    const res = await r.fetch();
    const body = (await res.text()).replace(/\.mount\(([\w$]+),[\w$]+\)/, '.mount($1)');
    await r.fulfill({ response: res, body });
  });
  const parts: string[] = [];
  page.on('request', (r) => { if (PART.test(r.url())) parts.push(r.url().split('/').pop()!); });
  await page.goto(w.page('/older-loader', w.embed(voiceBot)));
  await page.click('button.l');
  await page.locator('.w.panel:not([hidden]) .cp .mic').waitFor();
  assert.ok(parts.includes('chat-voice.js'), `loaded ${parts.join(', ')}`);
  await page.fill('.cp textarea', 'still types');
  assert.is(await page.inputValue('.cp textarea'), 'still types');
});

test.run();
