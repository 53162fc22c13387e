/**
 * The face engine (docs/faces.md) in headless Chromium: loaded only when the chat opens, every layout in light and
 * dark, each mood on every catalogue face, and the launcher's face picture. Screenshots: /tmp/shots/face/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WidgetWorld } from './world.js';
import { faceState, MOODS, openFace, SHOTS, startFaceWorld } from './face-world.js';

let w: WidgetWorld;
let botId: string;

test.before(async () => { ({ w, botId } = await startFaceWorld()); });
test.after(async () => { await w?.close(); });
const open = (bot: string, boot: Record<string, unknown> = {}, options: Parameters<WidgetWorld['newPage']>[1] = {}) => openFace(w, bot, boot, options);

test('face.js is loaded only when the chat opens, within its 30 KB budget', async () => {
  assert.ok(w.sizes.face.gzip <= 30 * 1024, `face.js is ${w.sizes.face.gzip} B gzipped`);
  const page = await w.newPage();
  await page.goto(w.page('/lazy', w.embed(botId)));
  await page.locator('button.l').waitFor();
  await page.waitForTimeout(200);
  const loaded = () => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/face[.-][^/]*js$|\/face\.js$/.test(e.name)));
  assert.is(await loaded(), false, 'not in the initial download');
  await page.locator('button.l').click();
  await page.locator('.fc svg').waitFor();
  assert.is(await loaded(), true);
});

test('every layout shows the face, in light and in dark', async () => {
  for (const layout of ['panel', 'drawer', 'inline', 'floating']) {
    for (const mode of ['light', 'dark']) {
      const page = await open(botId, { layout, theme: { mode }, ...(layout === 'inline' ? { target: '#slot' } : {}) });
      const box = await page.locator('.fc').boundingBox();
      assert.ok(box && box.width >= 60, `${layout} ${mode}: the face is drawn (${box?.width}px)`);
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${SHOTS}/layout-${layout}-${mode}.png` });
      await page.context().close();
    }
  }
});

test('each mood has its own expression, reached smoothly (every catalogue face)', async () => {
  for (const skin of ['default', 'visor', 'friend']) {
    const bot = await w.createBot({ face: { skin: { kind: 'catalogue', id: skin }, config: { preset: skin === 'visor' ? 'violet' : skin === 'friend' ? 'sky' : 'cyan' } } });
    const page = await open(bot, { layout: 'floating', theme: { mode: 'light' } });
    const seen = new Set<string>();
    for (const mood of MOODS) {
      const mid = await page.evaluate((m) => {
        const el = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as any;
        el.face.setMood(m);
        return new Promise<number>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(el.face.frame.smile))));
      }, mood);
      await page.waitForTimeout(450);
      const s = await faceState(page);
      assert.is(s.mood, mood);
      seen.add(JSON.stringify([s.smile, s.brow, s.tilt, s.jaw, s.squint].map((n) => Math.round(n * 4))));
      assert.ok(Number.isFinite(mid), 'eased over frames');
      await page.locator('.fc').screenshot({ path: `${SHOTS}/mood-${skin}-${mood}.png` });
    }
    assert.is(seen.size, MOODS.length, `${skin}: every mood looks different`);
    const unknown = await page.evaluate(() => (document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as any).face.setMood('angry'));
    assert.is(unknown, false);
    await page.context().close();
  }
});

test('scrolled, the messages pass under a line below the face, never up against its chin', async () => {
  const page = await open(botId, { layout: 'panel', theme: { mode: 'light' } });
  for (const n of [1, 2, 3]) {
    w.fake.script({ text: `Answer ${n}: we repair city bikes, e-bikes and folding bikes, and most repairs take one day. Bring yours in any weekday.` });
    await page.fill('.cp textarea', `Question ${n}: what do you repair, and how long does it take?`);
    await page.press('.cp textarea', 'Enter');
    await page.locator('.m.assistant', { hasText: `Answer ${n}:` }).waitFor();
  }
  const list = page.locator('.ms');
  await page.waitForFunction(() => { const ms = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.ms')!; return ms.scrollTop > 0 && ms.scrollHeight - ms.scrollTop - ms.clientHeight < 2; });
  const face = (await page.locator('.fc').boundingBox())!;
  const ms = (await list.boundingBox())!;
  const line = await list.evaluate((el) => { const s = getComputedStyle(el); return { width: parseFloat(s.borderTopWidth), color: s.borderTopColor, bg: getComputedStyle(el.parentElement!).backgroundColor }; });
  await page.screenshot({ path: `${SHOTS}/scrolled-panel.png` });
  assert.ok(ms.y - (face.y + face.height) >= 6, `the list starts ${ms.y - (face.y + face.height)} px below the face`);
  assert.ok(line.width >= 1 && line.color !== line.bg, `a line marks the list's top edge (${JSON.stringify(line)})`);
  await page.context().close();
});

test('the launcher shows the face breathing (icon face), the same picture still (avatar), or a chat icon', async () => {
  const cases: Array<[string, string]> = [['face', 'breathing'], ['avatar', 'still'], ['chat', 'icon']];
  for (const [icon, what] of cases) {
    const bot = await w.createBot({ appearance: { launcher: { icon } }, face: { config: { preset: 'violet' } } });
    const page = await w.newPage({ width: 400, height: 300 });
    await page.goto(w.page(`/l${icon}`, w.embed(bot)));
    await page.locator('button.l').waitFor();
    const img = page.locator('button.l img.fa');
    if (icon === 'chat') {
      assert.is(await img.count(), 0);
      assert.is(await page.locator('button.l svg').count(), 1);
    } else {
      await page.waitForFunction(() => { const i = document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('button.l img') as HTMLImageElement | null; return !!i && i.complete && i.naturalWidth > 0; });
      const anim = await img.evaluate((e) => getComputedStyle(e).animationName);
      assert.is(anim, icon === 'face' ? 'br' : 'none', what);
      assert.match((await img.getAttribute('src'))!, /faces\/default-violet\.svg$/);
    }
    await page.locator('button.l').screenshot({ path: `${SHOTS}/launcher-${icon}.png` });
    // Opening shows the close icon; closing brings the picture back.
    await page.locator('button.l').click();
    await page.locator('.fc svg').waitFor();
    assert.is(await img.count(), 0);
    await page.context().close();
  }
  // A face in the site's accent colour, or a colour of its own: the prebuilt picture nearest that colour.
  for (const [face, theme, want] of [[{ preset: 'accent' }, { accent: '#16a34a' }, 'mint'], [{ color: '#f43f5e' }, {}, 'coral']] as const) {
    const page = await w.newPage({ width: 400, height: 300 });
    await page.goto(w.page(`/l${want}`, w.embed(await w.createBot({ appearance: { theme }, face: { config: face } }))));
    await page.locator('button.l img.fa').waitFor();
    await page.waitForFunction(() => { const i = document.querySelector('[data-service-chat]')?.shadowRoot?.querySelector('button.l img') as HTMLImageElement | null; return !!i && i.complete && i.naturalWidth > 0; });
    assert.match((await page.locator('button.l img.fa').getAttribute('src'))!, new RegExp(`faces/default-${want}\\.svg$`));
    await page.context().close();
  }
  const page = await w.newPage({ width: 400, height: 300 }, { reducedMotion: 'reduce' });
  await page.goto(w.page('/lreduced', w.embed(await w.createBot())));
  assert.is(await page.locator('button.l img.fa').evaluate((e) => getComputedStyle(e).animationName), 'none', 'still under reduced motion');
});

test.run();
