/**
 * Issue 40: with the disk full, a visitor's message over the widget socket was answered "something went wrong"
 * (code internal). It now gets the disk-full refusal the REST API gives (507 insufficient_storage): code
 * `insufficient_storage`, a message that says what to do, when to try again, and the message's clientId; the
 * server's readiness and metric report the disk, and the message goes through once space is back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EmbeddedStore } from '../../src/store/embedded.js';
import { startChatWorld } from './helpers.js';

let w: Awaited<ReturnType<typeof startChatWorld>>;
test.before(async () => { w = await startChatWorld({ kind: 'openai' }); });
test.after(async () => { await w.close(); });
const store = () => w.server.app.store as EmbeddedStore;

function assertDiskFull(frame: any, clientId: string) {
  assert.is(frame.code, 'insufficient_storage', JSON.stringify(frame));
  assert.is(frame.clientId, clientId);
  assert.is(frame.message, 'your message could not be saved because the server has run out of storage space; it was not sent. Please try again in a few minutes.');
  assert.is(frame.retryAfterMs, 60_000);
  assert.not.ok(frame.message.includes(w.server.dataDir), 'the server\'s folders are not shown to visitors');
}

test('a first message (it opens the conversation) and a later one, with the disk full, get the disk-full error', async () => {
  const first = await w.visitor();
  const later = await w.visitor();
  later.say('Hello before the disk fills', { clientId: 'c0' });
  await later.reply();
  await store().injectWriteFault('SQLITE_FULL');
  try {
    first.say('Hello', { clientId: 'c1' });
    assertDiskFull(await first.next('error'), 'c1');
    later.say('Are you still there?', { clientId: 'c2' });
    assertDiskFull(await later.next('error'), 'c2');
    const ready = await w.server.request('GET', '/readyz');
    assert.is(ready.status, 503, 'readiness names the disk');
    assert.is(ready.body.checks.disk.ok, false);
  } finally {
    await store().injectWriteFault(null);
  }
  for (const [v, id] of [[first, 'c1'], [later, 'c2']] as const) {
    assert.is(v.frames.filter((f) => f.t === 'error' && f.clientId === id).length, 1, `one error for ${id}: ${JSON.stringify(v.frames.filter((f) => f.t === 'error'))}`);
  }
  first.say('Hello again', { clientId: 'c3' });
  await first.reply();
  later.say('Back?', { clientId: 'c4' });
  await later.reply();
  await first.close();
  await later.close();
});

test.run();
