/** leadCapture.when start in the widget: typing before the form is refused in plain words and the form stays. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test('a message before the start form is marked not sent, the form is shown, and after the form the chat answers', async () => {
  const botId = await w.createBot({ behavior: { leadCapture: { enabled: true, when: 'start' } } });
  const page = await w.newPage();
  await page.goto(w.page('/lead-start', w.embed(botId)));
  await page.click('button.l');
  await page.locator('form.lead').waitFor();
  await page.fill('.cp textarea', 'Just tell me the price');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.user.failed', { hasText: 'Just tell me the price' }).waitFor();
  await page.locator('.line.error', { hasText: 'Please fill in the form first' }).waitFor();
  assert.ok(await page.locator('form.lead').isVisible());
  assert.is(await page.locator('.m.assistant:not(.welcome)').count(), 0);
  await page.screenshot({ path: '/tmp/widget-lead-start.png' });
  await page.fill('form.lead input[name=name]', 'Ada');
  await page.fill('form.lead input[name=email]', 'ada@example.com');
  await page.click('form.lead button[type=submit]');
  await page.locator('form.lead').waitFor({ state: 'detached' });
  w.fake.script({ text: 'From 10 EUR.' });
  await page.fill('.cp textarea', 'What is the price?');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'From 10 EUR.' }).waitFor();
});

test.run();
