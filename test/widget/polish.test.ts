/**
 * Polish: the window opens with a short animation, none under prefers-reduced-motion (and the message box takes
 * typing at once either way); the letter avatar shows only when the face is not shown below it. Screenshots in
 * /tmp/shots/widget/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWidgetWorld, type WidgetWorld } from './world.js';

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

test.run();
