/**
 * A page left open across the bot's closing time (behavior.hours.scope bot): the server's offline frame puts the
 * face to sleep and shows texts.offline without a reload, and the next opening wakes it. Time moves on the
 * server's fake clock. Screenshots: /tmp/shots/face/offline-live-*.png.
 */
import { mkdirSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { startWidgetWorld, type WidgetWorld } from './world.js';
import { faceState, openFace, SHOTS } from './face-world.js';

// Thursday 2026-01-01 16:58 UTC; open 09:00 to 17:00 on weekdays.
const clock = new FakeClock(Date.UTC(2026, 0, 1, 16, 58));
let w: WidgetWorld;
test.before(async () => { mkdirSync(SHOTS, { recursive: true }); w = await startWidgetWorld({ clock }); });
test.after(async () => { await w?.close(); });

const moodIs = (mood: string) => `(document.querySelector('[data-service-chat]').shadowRoot.querySelector('.fc').dataset.mood === ${JSON.stringify(mood)})`;

test('the face falls asleep at closing time on an open page, and wakes when the hours open', async () => {
  const bot = await w.createBot({
    behavior: { hours: { enabled: true, scope: 'bot', timezone: 'UTC', weekly: [1, 2, 3, 4, 5].map((day) => ({ day, open: '09:00', close: '17:00' })), holidays: [] } },
    texts: { offline: "We're away right now. Leave a message and we'll reply when we're back." },
  });
  const page = await openFace(w, bot, { layout: 'panel', theme: { mode: 'light' } });
  assert.is((await faceState(page)).mood, 'content', 'open at 16:58');
  assert.is(await page.locator('.line.offline').count(), 0);
  await page.screenshot({ path: `${SHOTS}/offline-live-before.png` });

  await clock.advance(3 * 60_000);
  await page.waitForFunction(moodIs('offline'));
  await page.locator('.line.offline').filter({ hasText: "We're away right now" }).waitFor();
  await page.waitForTimeout(600);
  assert.ok((await faceState(page)).open < 0.2, 'eyes shut');
  await page.screenshot({ path: `${SHOTS}/offline-live-closed.png` });

  await clock.advance(16 * 3600_000); // Friday 09:01
  await page.waitForFunction(moodIs('content'));
  await page.locator('.line.offline').waitFor({ state: 'detached' });
  await page.waitForTimeout(600);
  assert.ok((await faceState(page)).open > 0.5, 'eyes open again');
  await page.screenshot({ path: `${SHOTS}/offline-live-reopened.png` });
});

test.run();
