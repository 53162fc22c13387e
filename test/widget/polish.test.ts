/**
 * Polish: the window opens with a short animation, none under prefers-reduced-motion (and the message box takes
 * typing at once either way); the letter avatar shows only when the face is not shown below it. Screenshots in
 * /tmp/shots/widget/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settledBox, startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/widget';
let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

for (const [layout, expected] of [['panel', 'sc-in'], ['drawer', 'sc-right'], ['floating', 'sc-in']] as const) {
  test(`the ${layout} opens with an animation, and without one under reduced motion`, async () => {
    const botId = await w.createBot({ appearance: { layout } });
    for (const reducedMotion of ['no-preference', 'reduce'] as const) {
      const page = await w.newPage(undefined, { reducedMotion });
      await page.goto(w.page(`/anim-${layout}-${reducedMotion}`, w.embed(botId)));
      await page.click('button.l');
      const win = page.locator('.w[role=dialog]');
      await win.waitFor();
      const anim = await win.evaluate((el) => ({ name: getComputedStyle(el).animationName, ms: parseFloat(getComputedStyle(el).animationDuration) * 1000 }));
      if (reducedMotion === 'reduce') assert.is(anim.name, 'none', `${layout}: no animation under reduced motion`);
      else {
        assert.is(anim.name, expected, layout);
        assert.ok(anim.ms > 0 && anim.ms <= 250, `${layout}: short (${anim.ms} ms)`);
      }
      // The animation never holds the visitor back: typing works at once.
      await page.keyboard.type('Hi');
      assert.is(await page.locator('.cp textarea').inputValue(), 'Hi');
      await page.context().close();
    }
  });
}

test('the letter avatar shows only when the face is hidden', async () => {
  const botId = await w.createBot();
  const page = await w.newPage();
  await page.goto(w.page('/avatar', w.embed(botId)));
  await page.click('button.l');
  await page.locator('.fc').waitFor();
  assert.is(await page.locator('.hd .av').count(), 0, 'the face stands for the agent');
  await page.screenshot({ path: `${SHOTS}/polish-face-header.png` });
  await page.click('.facebtn');
  await page.locator('.hd .av').waitFor();
});

for (const [layout, expected] of [['panel', 'sc-in-out'], ['drawer', 'sc-right-out'], ['floating', 'sc-in-out']] as const) {
  test(`the ${layout} closes with an animation, inert while it plays and hidden after; at once under reduced motion`, async () => {
    const botId = await w.createBot({ appearance: { layout } });
    for (const reducedMotion of ['no-preference', 'reduce'] as const) {
      const page = await w.newPage(undefined, { reducedMotion });
      await page.goto(w.page(`/close-${layout}-${reducedMotion}`, w.embed(botId)));
      await page.click('button.l');
      const win = page.locator('.w[role=dialog]');
      await settledBox(win);
      // Closed by the window's own close button; what the window is like in the same task as the click.
      const closing = await win.evaluate((el) => {
        (el.querySelector('button.close') as HTMLElement).click();
        const s = getComputedStyle(el);
        return { hidden: (el as HTMLElement).hidden, display: s.display, name: s.animationName, ms: parseFloat(s.animationDuration) * 1000, inert: (el as HTMLElement).inert };
      });
      if (reducedMotion === 'reduce') assert.equal([closing.hidden, closing.display], [true, 'none'], `${layout}: hidden at once under reduced motion`);
      else {
        assert.is(closing.name, expected, layout);
        assert.ok(closing.ms > 0 && closing.ms <= 250, `${layout}: short (${closing.ms} ms)`);
        assert.ok(closing.inert, `${layout}: inert while it closes`);
        await page.screenshot({ path: `${SHOTS}/polish-closing-${layout}.png` });
      }
      await page.locator('.w[role=dialog][hidden]').waitFor({ state: 'attached' });
      assert.is(await win.evaluate((el) => getComputedStyle(el).display), 'none', `${layout}: hidden after`);
      // The keyboard is on the launcher, and reopening shows the window whole.
      assert.is(await page.evaluate(() => document.activeElement?.hasAttribute('data-service-chat')), true);
      await page.click('button.l');
      const box = await settledBox(page.locator('.w[role=dialog]:not([hidden])'));
      assert.ok(box.width > 200, `${layout}: reopened`);
      assert.is(await win.evaluate((el) => (el as HTMLElement).inert), false);
      await page.context().close();
    }
  });
}

test('the header on the default indigo accent has white text at 4.5:1 or more, on the same indigo', async () => {
  const botId = await w.createBot();
  const page = await w.newPage();
  await page.goto(w.page('/indigo', w.embed(botId)));
  await page.click('button.l');
  const hd = page.locator('.w:not([hidden]) .hd');
  await settledBox(hd);
  const [fg, bg] = await hd.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
  assert.is(fg, 'rgb(255, 255, 255)');
  const channels = (c: string) => c.match(/\d+/g)!.map(Number);
  // The site's indigo #6366f1 (99, 102, 241), at most a shade darker.
  channels(bg).forEach((v, i) => assert.ok(Math.abs(v - [99, 102, 241][i]) <= 3, `${bg} is the default indigo`));
  const lum = (c: number[]) => { const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = 1.05 / (lum(channels(bg)) + 0.05);
  assert.ok(ratio >= 4.5, `white on ${bg}: ${ratio.toFixed(2)}:1`);
  assert.is(await page.locator('button.l').evaluate((el) => getComputedStyle(el).color), 'rgb(255, 255, 255)', 'the launcher icon too');
  await hd.screenshot({ path: `${SHOTS}/polish-indigo-header.png` });
});

test.run();
