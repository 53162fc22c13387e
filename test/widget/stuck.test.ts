/**
 * States that would leave a visitor stuck: the message box waits while the start form is shown, a refused message
 * goes back into the message box, and a floating layout with no message box and no voice cannot be published.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/widget';
let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test('the message box is inactive while the start form waits, and works once it is answered', async () => {
  const botId = await w.createBot({ behavior: { leadCapture: { enabled: true, when: 'start' } } });
  const page = await w.newPage();
  await page.goto(w.page('/stuck-start', w.embed(botId)));
  await page.click('button.l');
  await page.locator('form.lead').waitFor();
  assert.ok(await page.locator('.cp textarea').isDisabled(), 'message box inactive');
  assert.ok(await page.locator('.cp button.send').isDisabled(), 'send inactive');
  await page.screenshot({ path: `${SHOTS}/stuck-start-form.png` });
  await page.fill('form.lead input[name=name]', 'Ada');
  await page.fill('form.lead input[name=email]', 'ada@example.com');
  await page.click('form.lead button[type=submit]');
  await page.locator('form.lead').waitFor({ state: 'detached' });
  assert.ok(await page.locator('.cp textarea').isEnabled());
  w.fake.script({ text: 'From 10 EUR.' });
  await page.fill('.cp textarea', 'What is the price?');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'From 10 EUR.' }).waitFor();
});

test('a refused message goes back into the message box, to send again without typing it again', async () => {
  const botId = await w.createBot({ security: { rateLimits: { messagesPerMinute: 1 } } });
  const page = await w.openChat(botId, { path: '/stuck-refused' });
  w.fake.script({ text: 'Hello!' });
  await page.fill('.cp textarea', 'First question');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Hello!' }).waitFor();
  await page.fill('.cp textarea', 'A long second question I would not like to type again');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.user.failed').waitFor();
  await page.locator('.line.error', { hasText: 'too quickly' }).waitFor();
  assert.is(await page.locator('.cp textarea').inputValue(), 'A long second question I would not like to type again');
});

test('a floating layout with neither a message box nor voice is refused at publish, in the error shape', async () => {
  const as = (method: string, path: string, body?: unknown) => w.server.request(method, `/api/v1${path}`, { body, headers: w.owner.headers });
  const bot = (await as('POST', '/bots', { name: 'Mute floating' })).body;
  const edited = (await as('PATCH', `/bots/${bot.id}`, { revision: bot.revision, patch: { appearance: { layout: 'floating', floating: { composer: false } } } })).body;
  const r = await as('POST', `/bots/${bot.id}/publish`, { revision: edited.revision });
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'invalid');
  assert.match(r.body.error.message, 'appearance.floating.composer');
  assert.match(r.body.error.message, 'turn voice on');
  assert.is((await as('GET', `/bots/${bot.id}`)).body.publishedVersion ?? null, null, 'nothing published');
});

test('outside opening hours the offline text shows once, before and after the visitor writes, in every layout', async () => {
  const text = "We're away right now. Leave a message and we'll reply when we're back.";
  const botId = await w.createBot({ behavior: { hours: { enabled: true, scope: 'bot', timezone: 'UTC', weekly: [], holidays: [] } }, texts: { offline: text } });
  for (const layout of ['panel', 'floating']) {
    const page = await w.newPage();
    await page.goto(w.page(`/stuck-offline-${layout}`, w.embed(botId, { layout })));
    await page.click('button.l');
    const shown = page.locator('.w:not([hidden])').getByText(text);
    await shown.first().waitFor();
    assert.is(await shown.count(), 1, `${layout}: once on opening`);
    await page.fill('.cp textarea', 'Are you there?');
    await page.press('.cp textarea', 'Enter');
    // The server answers with the offline text as a system line (the model is not called).
    await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'message' && f.message?.role === 'system_event'));
    await page.screenshot({ path: `${SHOTS}/stuck-offline-${layout}.png` });
    assert.is(await shown.count(), 1, `${layout}: once after the visitor wrote`);
    await page.context().close();
  }
});

test.run();
