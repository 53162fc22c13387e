/**
 * axe-core (WCAG 2.1 A/AA and best practices) on the widget in every layout and theme, closed and open with a
 * conversation in it, on desktop and phone widths. Only the widget is checked (the host page is the site's).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { startWidgetWorld, widgetSettled, type WidgetWorld } from './world.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = '/tmp/shots/widget';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

/** axe's findings inside the widget, once it has finished fading in (mid-animation colours are half-transparent). */
async function violations(page: Page): Promise<string[]> {
  await widgetSettled(page);
  await page.evaluate(AXE + '\n;0');
  return page.evaluate(async () => {
    const r = await (window as any).axe.run({ include: [['[data-service-chat]']] }, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'],
    });
    return r.violations.map((v: any) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 4).map((n: any) => JSON.stringify(n.target)).join(', ')}`);
  });
}

for (const layout of ['panel', 'drawer', 'floating', 'inline'] as const) {
  for (const mode of ['light', 'dark'] as const) {
    test(`the ${layout} layout in ${mode} mode has no accessibility violations, closed and in a conversation`, async () => {
      const botId = await w.createBot({
        appearance: { layout, theme: { mode, accent: mode === 'dark' ? '#f59e0b' : '#0ea5e9' } },
        behavior: { citations: true },
      });
      for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 780 }]) {
        const page = await w.newPage(viewport);
        const html = layout === 'inline'
          ? w.embed(botId, { target: '#chat' }, '<div id="chat" style="height:560px;max-width:420px"></div>')
          : w.embed(botId);
        await page.goto(w.page(`/axe-${layout}-${mode}-${viewport.width}`, html));
        const launcher = page.locator('button.l');
        if (layout !== 'inline') {
          await launcher.waitFor();
          assert.equal(await violations(page), [], `${layout}/${mode}/${viewport.width} closed`);
          await launcher.click();
        }
        await page.locator('.cp textarea').waitFor();
        w.fake.script({ text: 'Sure! Here is **what we offer**:\n\n- Free returns\n- [Shipping info](https://example.com/shipping)' });
        await page.fill('.cp textarea', 'What do you offer?');
        await page.press('.cp textarea', 'Enter');
        // The floating layout shows the reply as a caption over the page, the others in the message list.
        await page.getByText('Free returns').first().waitFor();
        assert.equal(await violations(page), [], `${layout}/${mode}/${viewport.width} open`);
        await page.screenshot({ path: `${SHOTS}/axe-${layout}-${mode}-${viewport.width}.png` });
        await page.context().close();
      }
    });
  }
}

test.run();
