/**
 * When what crosses to other processes is sent (src/scale/cross-batch.ts): a lone event at once, a stream's events
 * batched in a window after a send, a stored message at once whatever the window (issue 25's crossing latency).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crossesAtOnce } from '../../src/group/join.js';
import { CrossBatch } from '../../src/scale/cross-batch.js';

/** The end of this turn of the event loop (and of the next, for what it scheduled). */
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/** A batch whose sends take what was queued: `queue(x, now)` then `sent` lists each send's items. */
function batch(windowMs = 1000) {
  const waiting: string[] = [];
  const sent: string[][] = [];
  const b = new CrossBatch(() => { sent.push(waiting.splice(0)); }, windowMs);
  return { sent, b, queue(x: string, now = false) { waiting.push(x); b.due(now); } };
}

test('the first event after a quiet spell goes at the end of its turn of the loop, with what that turn adds', async () => {
  const { sent, queue } = batch();
  queue('status');
  queue('delta');
  assert.equal(sent, []);
  await nextTurn();
  assert.equal(sent, [['status', 'delta']]);
});

test('what streams within the window after a send waits for its end, then goes as one', async () => {
  const { sent, queue, b } = batch();
  queue('status');
  await nextTurn();
  queue('delta 1');
  await nextTurn();
  queue('delta 2');
  await nextTurn();
  // The window (1 s here) has not ended: nothing more went.
  assert.equal(sent, [['status']]);
  b.flush();
  assert.equal(sent, [['status'], ['delta 1', 'delta 2']]);
});

test('a team member\'s message within the window goes at the end of its turn of the loop, taking what waits with it', async () => {
  const { sent, queue } = batch();
  queue('status');
  await nextTurn();
  queue('delta');
  queue('team message', true);
  await nextTurn();
  // Before, it waited for the window's end (up to 5 ms: team messages crossed at p99 5.8 ms, issue 25's target 5).
  assert.equal(sent, [['status'], ['delta', 'team message']]);
  queue('status idle');
  await nextTurn();
  assert.equal(sent.length, 2, 'what streams after it waits for the window again');
});

test('a team member\'s message, a handoff\'s step and a reply\'s end cross at once; the rest of a chat turn may wait', () => {
  const at = (type: string, data: Record<string, unknown>) => crossesAtOnce({ type, data } as never);
  assert.ok(at('message.created', { message: { role: 'human_agent' } }));
  assert.ok(at('handoff.requested', {}));
  // The agent idle again ends a reply: its stored answer went just before, and the turn's waiting events go with it.
  assert.ok(at('agent.status', { conversationId: 'c', state: 'idle' }));
  assert.not.ok(at('agent.status', { conversationId: 'c', state: 'thinking' }));
  assert.not.ok(at('message.delta', { delta: 'x' }));
  assert.not.ok(at('message.created', { message: { role: 'visitor' } }));
  assert.not.ok(at('message.created', { message: { role: 'assistant' } }));
});

test.run();
