import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { captureLog, makeCounter } from './counter-actor.js';

async function started(clock: FakeClock) {
  const actor = makeCounter('t', clock, captureLog());
  await actor.start();
  return actor;
}

test('a timer delivers its message when the fake clock reaches it, not before', async () => {
  const clock = new FakeClock();
  const actor = await started(clock);
  await actor.ask({ type: 'arm', name: 'handoff', ms: 1000, label: 'due' });
  await clock.advance(999);
  await actor.ask({ type: 'get' });
  assert.equal(actor.handled, []);
  await clock.advance(1);
  await actor.ask({ type: 'get' });
  assert.equal(actor.handled, ['note:due']);
  await actor.stop();
});

test('setting a timer with the same name replaces it, so it fires once at the new time', async () => {
  const clock = new FakeClock();
  const actor = await started(clock);
  await actor.ask({ type: 'arm', name: 'idle', ms: 1000, label: 'old' });
  await clock.advance(500);
  await actor.ask({ type: 'arm', name: 'idle', ms: 1000, label: 'new' });
  await clock.advance(600); // the old one would have fired here
  await actor.ask({ type: 'get' });
  assert.equal(actor.handled, []);
  await clock.advance(400);
  await clock.advance(5000);
  await actor.ask({ type: 'get' });
  assert.equal(actor.handled, ['note:new']);
  await actor.stop();
});

test('a cancelled timer never fires', async () => {
  const clock = new FakeClock();
  const actor = await started(clock);
  await actor.ask({ type: 'arm', name: 'ring', ms: 100, label: 'ring' });
  assert.is(await actor.ask({ type: 'disarm', name: 'ring' }), true);
  await clock.advance(10_000);
  await actor.ask({ type: 'get' });
  assert.equal(actor.handled, []);
  assert.is(clock.pending, 0);
  await actor.stop();
});

test('timers die when the actor stops', async () => {
  const clock = new FakeClock();
  const actor = await started(clock);
  await actor.ask({ type: 'arm', name: 'a', ms: 100, label: 'a' });
  await actor.ask({ type: 'arm', name: 'b', ms: 200, label: 'b' });
  assert.is(clock.pending, 2);
  await actor.stop();
  assert.is(clock.pending, 0);
  await clock.advance(1000);
  assert.equal(actor.handled, []);
  assert.is(actor.status, 'stopped');
});

test('a due timer is delivered even when the mailbox is full of ordinary messages', async () => {
  const clock = new FakeClock();
  const actor = makeCounter('t-full', clock, captureLog(), 2);
  await actor.start();
  await actor.ask({ type: 'arm', name: 'deadline', ms: 50, label: 'deadline' });
  let release!: () => void;
  actor.send({ type: 'wait', until: new Promise<void>((r) => (release = r)), label: 'busy' });
  await new Promise<void>((r) => setImmediate(r));
  actor.send({ type: 'note', label: 'q1' });
  actor.send({ type: 'note', label: 'q2' });
  await clock.advance(50);
  release();
  await actor.stop();
  assert.equal(actor.handled, ['wait:busy', 'note:q1', 'note:q2', 'note:deadline']);
});

test.run();
