/** leadCapture.when start in the widget: the message box waits for the form; a message sent anyway is refused in plain words and the form stays. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test('the message box waits for the start form, a message sent anyway is refused, and after the form the chat answers', async () => {
  const botId = await w.createBot({ behavior: { leadCapture: { enabled: true, when: 'start' } } });
  const page = await w.openChat(botId, { path: '/lead-start' });
  await page.locator('form.lead').waitFor();
  // The message box waits for the form; a message sent anyway (another client) is refused by the server.
  assert.ok(await page.locator('.cp textarea').isDisabled());
  await page.evaluate(() => (window as any).__sockets[0].send(JSON.stringify({ t: 'message', text: 'Just tell me the price', clientId: 'c-raw' })));
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'error' && f.clientId === 'c-raw'));
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

test('a visitor who filled the start form is not asked for the same details again by the away form', async () => {
  const botId = await w.createBot({ behavior: { leadCapture: { enabled: true, when: 'start' }, handoff: { enabled: true, offlineAction: 'lead_form' } } });
  const page = await w.openChat(botId, { path: '/lead-start-away' });
  await page.locator('form.lead').waitFor();
  await page.fill('form.lead input[name=name]', 'Ada');
  await page.fill('form.lead input[name=email]', 'ada@example.com');
  await page.click('form.lead button[type=submit]');
  await page.locator('form.lead').waitFor({ state: 'detached' });
  // Nobody from the team is online: asking for a person gives the away text, and the form would come before the
  // answer to the request on the same socket.
  await page.evaluate(() => (window as any).__sockets[0].send(JSON.stringify({ t: 'handoff' })));
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'handoff' && f.available === false));
  const forms = await page.evaluate(() => (window as any).__frames.filter((f: any) => f.t === 'lead_form').length);
  assert.is(forms, 1, 'only the start form was shown');
  assert.is(await page.locator('form.lead').count(), 0);
  await page.screenshot({ path: '/tmp/widget-lead-start-away.png' });
});

test.run();
