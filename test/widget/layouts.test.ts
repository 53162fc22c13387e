import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settledBox, startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
let botId: string;

test.before(async () => {
  w = await startWidgetWorld();
  botId = await w.createBot({
    welcome: { message: 'Hello! Ask me about our widgets.', suggestedPrompts: ['Opening hours?'] },
    greeting: { enabled: true, delayMs: 0, text: 'Psst, need help choosing?', frequency: 'session', pages: { include: ['/promo*'] } },
    appearance: {
      launcher: { type: 'tab', edge: 'right', align: 'center', label: 'Chat with us' },
      drawer: { modal: true, width: 380 },
      theme: { mode: 'dark', accent: '#0f766e', radius: 10, font: 'mono' },
    },
  });
});
test.after(async () => { await w?.close(); });

const inPageWait = (ms: number) => `new Promise((r) => setTimeout(r, ${ms}))`;

test('the greeting teaser shows on an included page, opens the chat, and shows once per session', async () => {
  const page = await w.newPage();
  await page.goto(w.page('/promo/spring', w.embed(botId, { layout: 'drawer' })));
  const tab = page.locator('button.l.tab');
  await tab.waitFor();
  assert.is(await tab.textContent(), 'Chat with us');
  const teaser = page.locator('.t');
  await teaser.waitFor();
  assert.match(await teaser.textContent() ?? '', /Psst, need help choosing\?/);
  await page.screenshot({ path: '/tmp/widget-teaser.png' });
  // The text is a button: Enter on it opens the chat, as a click does.
  await teaser.locator('button.p').focus();
  await page.keyboard.press('Enter');
  await page.locator('.w.drawer:not([hidden])').waitFor();
  assert.is(await page.locator('.t').count(), 0);
  await page.reload();
  await page.locator('button.l.tab').waitFor();
  await page.evaluate(inPageWait(300));
  assert.is(await page.locator('.t').count(), 0, 'frequency session: not again in this tab');
});

test('the greeting teaser does not show on pages outside greeting.pages.include', async () => {
  const page = await w.newPage();
  await page.goto(w.page('/about', w.embed(botId, { layout: 'drawer' })));
  await page.locator('button.l').waitFor();
  await page.evaluate(inPageWait(300));
  assert.is(await page.locator('.t').count(), 0);
});

test('the drawer is full height on the launcher side, modal, dark and in the configured font', async () => {
  const page = await w.newPage();
  await page.goto(w.page('/drawer', w.embed(botId, { layout: 'drawer' })));
  await page.click('button.l');
  const drawer = page.locator('.w.drawer:not([hidden])');
  const box = await settledBox(drawer);
  assert.equal([box.x + box.width, box.y, box.height, box.width], [1280, 0, 800, 380]);
  assert.ok(await page.locator('.bd').isVisible());
  assert.is(await page.evaluate(() => document.documentElement.style.overflow), 'hidden');
  assert.is(await drawer.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(17, 24, 39)');
  assert.match(await drawer.evaluate((el) => getComputedStyle(el).fontFamily), /monospace/);
  // Accent #0f766e is dark, so text on it is white.
  assert.is(await page.locator('.hd').evaluate((el) => getComputedStyle(el).color), 'rgb(255, 255, 255)');
  await page.screenshot({ path: '/tmp/widget-drawer.png' });
  await page.click('.bd', { position: { x: 100, y: 100 } });
  await page.locator('.w.drawer[hidden]').waitFor({ state: 'attached' });
  // Preact runs effect clean-ups after the next frame: wait for it rather than racing it.
  await page.waitForFunction(() => document.documentElement.style.overflow === '');
});

test('the floating layout shows the face, the latest reply as a caption and a small composer', async () => {
  const page = await w.newPage();
  await page.goto(w.page('/floating', w.embed(botId, { layout: 'floating' })));
  await page.click('button.l');
  await page.locator('.w.floating:not([hidden]) .fc svg').waitFor();
  assert.is(await page.locator('.cap').textContent(), 'Hello! Ask me about our widgets.');
  w.fake.script({ text: 'We are open 9 to 5, Monday to Friday.' });
  await page.fill('.cp textarea', 'When are you open?');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.cap', { hasText: 'Monday to Friday.' }).waitFor();
  await page.locator('.st:text-is("")').waitFor({ state: 'attached' });
  await page.screenshot({ path: '/tmp/widget-floating.png' });
});

test('the inline layout renders into data-target without a launcher', async () => {
  const page = await w.newPage();
  const container = '<div id="support" style="height:560px;width:480px;margin:20px 0"></div>';
  await page.goto(w.page('/inline', w.embed(botId, { layout: 'inline', target: '#support' }, container)));
  const win = page.locator('#support .w.inline');
  await win.waitFor();
  assert.is(await page.locator('button.l').count(), 0);
  const box = (await win.boundingBox())!;
  assert.equal([Math.round(box.width), Math.round(box.height)], [480, 560]);
  await page.locator('.cp textarea').waitFor();
  await page.screenshot({ path: '/tmp/widget-inline.png' });
});

test('on a phone the open panel fills the screen', async () => {
  const page = await w.newPage({ width: 390, height: 760 });
  await page.goto(w.page('/phone', w.embed(botId, { layout: 'panel' })));
  await page.click('button.l');
  const box = await settledBox(page.locator('.w.panel:not([hidden])'));
  assert.equal([box.x, box.y, box.width, box.height], [0, 0, 390, 760]);
  await page.screenshot({ path: '/tmp/widget-mobile.png' });
});

test('boot options from the page override the layout and launcher', async () => {
  const html = `<!doctype html><html><body><h1>Booted by script</h1>
<script src="${w.server.url}/static/widget/loader.js" async></script>
<script>(window.ServiceChat = window.ServiceChat || { q: [] }).q.push(['boot', { botId: '${botId}', layout: 'panel', launcher: { type: 'bubble', position: 'bottom-left' }, theme: { mode: 'light' } }]);</script>
</body></html>`;
  const page = await w.newPage();
  await page.goto(w.page('/boot', html));
  const bubble = page.locator('button.l.bubble');
  await bubble.waitFor();
  const box = (await bubble.boundingBox())!;
  assert.equal([box.x, box.y + box.height], [20, 780]);
  await bubble.click();
  const panel = page.locator('.w.panel:not([hidden])');
  assert.is(Math.round((await settledBox(panel)).x), 20);
  assert.is(await panel.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 255)');
  await page.screenshot({ path: '/tmp/widget-panel-left.png' });
});

test.run();
