/**
 * Issue 40: with the server's disk full, a visitor's message got "Something went wrong". The widget now says the
 * server is out of storage space and to try again in a few minutes, and the message stays in the box to send again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EmbeddedStore } from '../../src/store/embedded.js';
import { startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/widget';
let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); });
test.after(async () => { await w?.close(); });

test('a message refused for a full disk says so in the widget, stays in the box, and goes through once space is back', async () => {
  const botId = await w.createBot({});
  const page = await w.openChat(botId, { path: '/disk-full' });
  w.fake.script({ text: 'Hello!' });
  await page.fill('.cp textarea', 'First question');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Hello!' }).waitFor();

  const store = w.server.app.store as EmbeddedStore;
  await store.injectWriteFault('SQLITE_FULL');
  try {
    await page.fill('.cp textarea', 'Do you deliver on Saturdays?');
    await page.press('.cp textarea', 'Enter');
    await page.locator('.line.error', { hasText: 'out of storage space' }).waitFor();
    await page.screenshot({ path: `${SHOTS}/disk-full.png` });
    assert.is(await page.locator('.line.error').innerText(), 'Your message could not be saved: the server is out of storage space. Please try again in a few minutes.');
    assert.is(await page.locator('.cp textarea').inputValue(), 'Do you deliver on Saturdays?');
  } finally {
    await store.injectWriteFault(null);
  }
  w.fake.script({ text: 'Yes, on Saturdays too.' });
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Yes, on Saturdays too.' }).waitFor();
});

test.run();
