/** When the agent asks for a person (handoff_to_human), the widget is told as when the visitor asks. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { framesOf, startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test("the agent's handoff request reaches the widget as a handoff frame and is shown", async () => {
  const botId = await w.createBot({ behavior: { handoff: { enabled: true } } });
  const page = await w.openChat(botId, { path: '/agent-handoff' });
  w.fake.script([
    { toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'Refund over the limit' } }] },
    { text: 'I have asked a colleague to help.' },
  ]);
  await page.fill('.cp textarea', 'I want a refund of 900 EUR');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'asked a colleague' }).waitFor();
  const frames = await framesOf(page, 'handoff');
  assert.is(frames.length, 1);
  assert.type(frames[0].handoffId, 'string');
  // Available: the widget says a person was asked; nobody available: the server's offline line is shown instead.
  const line = frames[0].available ? 'Asking a team member to join' : '';
  if (line) await page.locator('.line', { hasText: line }).waitFor();
  else assert.ok(await page.locator('.line').count() > 0);
  await page.screenshot({ path: '/tmp/widget-agent-handoff.png' });
});

test.run();
