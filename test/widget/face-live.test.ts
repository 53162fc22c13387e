/**
 * The face engine live (docs/faces.md): mood tags (known, unknown, expressions off), hiding the face, the mime while
 * a typed reply streams, reduced motion, and the offline face. Screenshots: /tmp/shots/face/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { framesOf, type WidgetWorld } from './world.js';
import { faceState, openFace, sample, SHOTS, startFaceWorld } from './face-world.js';

let w: WidgetWorld;
let botId: string;

test.before(async () => { ({ w, botId } = await startFaceWorld()); });
test.after(async () => { await w?.close(); });
const open = (bot: string, boot: Record<string, unknown> = {}, options: Parameters<WidgetWorld['newPage']>[1] = {}) => openFace(w, bot, boot, options);

test('the visitor can hide the face, and the choice is remembered', async () => {
  const page = await open(botId);
  await page.locator('.hd .facebtn').click();
  assert.is(await page.locator('.fc').count(), 0);
  assert.is(await page.locator('.hd .facebtn').getAttribute('aria-pressed'), 'false');
  await page.reload();
  await page.locator('.hd .facebtn').waitFor();
  assert.is(await page.locator('.fc').count(), 0, 'still hidden after a reload');
  await page.locator('.hd .facebtn').click();
  await page.locator('.fc svg').waitFor();
});

test('appearance.face.show false starts without the face; face.skin null has no face and no button', async () => {
  const hidden = await w.createBot({ appearance: { face: { show: false } } });
  const p1 = await w.newPage();
  await p1.goto(w.page('/hidden', w.embed(hidden)));
  await p1.locator('button.l').click();
  await p1.locator('.hd .facebtn[aria-pressed=false]').waitFor();
  assert.is(await p1.locator('.fc').count(), 0, 'no face is drawn; the visitor can show it');
  const none = await w.createBot({ face: { skin: null } });
  const p2 = await w.openChat(none, { path: '/noface', attrs: { layout: 'panel' } });
  assert.is(await p2.locator('.fc').count(), 0);
  assert.is(await p2.locator('.facebtn').count(), 0);
});

test('a mood tag in a reply changes the face and never shows in the text; an unknown mood is ignored', async () => {
  const page = await open(botId);
  assert.is((await faceState(page)).mood, 'content', 'face.defaultMood');
  w.fake.script({ text: '[mood:happy] Glad to help!' });
  await page.locator('.cp textarea').fill('thanks');
  await page.keyboard.press('Enter');
  await page.locator('.m.assistant:not(.welcome)').filter({ hasText: 'Glad to help!' }).waitFor();
  await page.waitForFunction(() => (document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as HTMLElement).dataset.mood === 'happy');
  await page.waitForTimeout(500);
  const happy = await faceState(page);
  assert.ok(happy.smile > 0.8 && happy.squint > 0.4, 'smiling, eyes crescent');
  assert.not.match(await page.locator('.ms').innerText(), /\[mood/);

  w.fake.script({ text: '[mood:furious] Hmm.' });
  await page.locator('.cp textarea').fill('and?');
  await page.keyboard.press('Enter');
  await page.locator('.m.assistant:not(.welcome)').filter({ hasText: 'Hmm.' }).waitFor();
  assert.equal((await framesOf(page, 'face')).map((f) => f.mood), ['happy'], 'the unknown mood was not forwarded');
  assert.is((await faceState(page)).mood, 'happy');
  assert.not.match(await page.locator('.ms').innerText(), /\[mood/);
});

test('with face.expressions off mood tags are removed from the text and the face keeps its mood', async () => {
  const bot = await w.createBot({ face: { expressions: false, defaultMood: 'thinking' } });
  const page = await open(bot);
  w.fake.script({ text: '[mood:sad] Sorry, we are closed.' });
  await page.locator('.cp textarea').fill('open?');
  await page.keyboard.press('Enter');
  await page.locator('.m.assistant:not(.welcome)').filter({ hasText: 'Sorry, we are closed.' }).waitFor();
  assert.not.match(await page.locator('.ms').innerText(), /\[mood/);
  assert.is((await framesOf(page, 'face')).length, 0);
  assert.is((await faceState(page)).mood, 'thinking');
});

test('the face blinks, breathes and moves its gaze; the mouth mimes while a typed reply streams', async () => {
  const page = await open(botId);
  const breathe = await sample(page, 1500, 'breathe');
  assert.ok(Math.max(...breathe) - Math.min(...breathe) > 0.3, 'breathing');
  w.fake.script({ text: 'We are open from nine in the morning until five in the afternoon, Monday to Friday, and on Saturday mornings too.', chunkIntervalMs: 60 });
  await page.locator('.cp textarea').fill('hours?');
  await page.keyboard.press('Enter');
  await page.locator('.m.assistant:not(.welcome)').first().waitFor();
  const talking = await sample(page, 1200, 'talk');
  await page.screenshot({ path: `${SHOTS}/mime-streaming.png` });
  assert.ok(Math.max(...talking) > 0.1, `the mouth moves while the reply streams (${Math.max(...talking).toFixed(2)})`);
  await page.locator('.ms[aria-busy=false]').waitFor();
  await page.waitForTimeout(400);
  assert.ok((await faceState(page)).talk < 0.05, 'closed when the reply is done');
});

test('textReplies still: the mouth does not move while a reply streams', async () => {
  const bot = await w.createBot({ appearance: { face: { textReplies: 'still' } } });
  const page = await open(bot);
  w.fake.script({ text: 'One moment while I look that up for you, it will not take long at all.', chunkIntervalMs: 60 });
  await page.locator('.cp textarea').fill('hours?');
  await page.keyboard.press('Enter');
  await page.locator('.m.assistant:not(.welcome)').first().waitFor();
  assert.ok(Math.max(...(await sample(page, 500, 'talk'))) < 0.02);
});

test('under prefers-reduced-motion the face holds still, yet moods still change it', async () => {
  const page = await open(botId, {}, { reducedMotion: 'reduce' });
  const a = await sample(page, 1200, 'breathe');
  assert.ok(a.every((v) => v === 0), 'no breathing');
  assert.ok((await sample(page, 300, 'blink')).every((v) => v === 0), 'no blinking');
  w.fake.script({ text: '[mood:surprised] Oh! That is new to me, let me look into it for you.', chunkIntervalMs: 60 });
  await page.locator('.cp textarea').fill('news');
  await page.keyboard.press('Enter');
  await page.locator('.m.assistant:not(.welcome)').first().waitFor();
  assert.ok((await sample(page, 400, 'talk')).every((v) => v === 0), 'no mime');
  await page.waitForFunction(() => (document.querySelector('[data-service-chat]')!.shadowRoot!.querySelector('.fc') as HTMLElement).dataset.mood === 'surprised');
  await page.waitForTimeout(100);
  assert.ok((await faceState(page)).brow > 7, 'the surprised expression at once');
  await page.screenshot({ path: `${SHOTS}/reduced-motion.png` });
});

test('outside opening hours (scope bot) the face sleeps and the widget says the bot is offline', async () => {
  const bot = await w.createBot({
    behavior: { hours: { enabled: true, scope: 'bot', timezone: 'UTC', weekly: [], holidays: [] } },
    texts: { offline: "We're away right now. Leave a message and we'll reply when we're back." },
  });
  const cfg = await w.server.request('GET', `/widget/v1/bots/${bot}/config`);
  assert.is(cfg.body.offline, true);
  const open2 = await w.server.request('GET', `/widget/v1/bots/${botId}/config`);
  assert.is(open2.body.offline, false);
  for (const layout of ['panel', 'floating']) {
    const page = await open(bot, { layout, theme: { mode: 'light' } });
    await page.locator('.line.offline').filter({ hasText: "We're away right now" }).waitFor();
    assert.is((await faceState(page)).mood, 'offline');
    await page.waitForTimeout(600);
    assert.ok((await faceState(page)).open < 0.2, 'eyes shut');
    await page.screenshot({ path: `${SHOTS}/offline-${layout}.png` });
    await page.context().close();
  }
});

test.run();
