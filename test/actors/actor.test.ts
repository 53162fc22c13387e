import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { ActorStoppedError, MailboxFullError } from '../../actors/runtime/index.js';
import { captureLog, gate, makeCounter, rejection } from './counter-actor.js';

test('messages are handled one at a time in the order they were sent', async () => {
  const actor = makeCounter('c1', new FakeClock(), captureLog());
  await actor.start();
  for (let n = 1; n <= 5; n++) actor.send({ type: 'add', n });
  assert.is(await actor.ask({ type: 'get' }), 15);
  assert.equal(actor.handled, ['add:1', 'add:2', 'add:3', 'add:4', 'add:5']);
  assert.is(actor.maxConcurrent, 1);
  await actor.stop();
});

test('a message sent before start waits and is handled once the actor is running', async () => {
  const actor = makeCounter('c2', new FakeClock(), captureLog());
  actor.send({ type: 'add', n: 2 });
  assert.is(actor.status, 'idle');
  await actor.start();
  assert.is(actor.status, 'running');
  assert.is(await actor.ask({ type: 'get' }), 2);
  await actor.stop();
});

test('a handler that sends to itself sees that message handled only after it returns', async () => {
  const actor = makeCounter('c3', new FakeClock(), captureLog());
  await actor.start();
  await actor.ask({ type: 'sendToSelf' });
  assert.equal(actor.handled, ['sendToSelf:done'], 'the self-sent message waits for the running handler');
  await actor.ask({ type: 'get' });
  assert.equal(actor.handled, ['sendToSelf:done', 'note:from-self']);
  assert.is(actor.maxConcurrent, 1);
  await actor.stop();
});

test('send never runs the handler inside the caller', async () => {
  const actor = makeCounter('c4', new FakeClock(), captureLog());
  await actor.start();
  actor.send({ type: 'note', label: 'x' });
  assert.is(actor.concurrent, 0);
  assert.equal(actor.handled, []);
  await actor.ask({ type: 'get' });
  assert.equal(actor.handled, ['note:x']);
  await actor.stop();
});

test('ask resolves with the value the handler returns', async () => {
  const actor = makeCounter('c5', new FakeClock(), captureLog());
  await actor.start();
  const total: number = await actor.ask({ type: 'add', n: 7 });
  assert.is(total, 7);
  await actor.stop();
});

test('a failing message rejects its own ask, is logged with the actor id, and the next message still runs', async () => {
  const log = captureLog();
  const actor = makeCounter('c6', new FakeClock(), log);
  await actor.start();
  const failed = actor.ask({ type: 'fail', reason: 'boom' });
  const next = actor.ask({ type: 'add', n: 1 });
  actor.send({ type: 'fail', reason: 'unasked' }); // no ask: must not become an unhandled rejection
  assert.match(((await rejection(failed)) as Error).message, /boom/);
  assert.is(await next, 1);
  assert.is(await actor.ask({ type: 'get' }), 1);
  assert.is(actor.status, 'running');
  assert.is(log.errors.length, 2);
  assert.is(log.errors[0].obj.actorId, 'c6');
  assert.is(log.errors[0].obj.msgType, 'fail');
  assert.is((log.errors[1].obj.err as Error).message, 'unasked');
  await actor.stop();
});

test('a full mailbox refuses the newest message with MailboxFullError and keeps the queued ones', async () => {
  const actor = makeCounter('c7', new FakeClock(), captureLog(), 3);
  await actor.start();
  const hold = gate();
  const held = actor.ask({ type: 'wait', until: hold.promise, label: 'held' });
  await new Promise<void>((r) => setImmediate(r)); // the held message is now running, not queued
  for (let n = 1; n <= 3; n++) actor.send({ type: 'add', n });
  assert.is(actor.queued, 3);
  try {
    actor.send({ type: 'add', n: 4 });
    assert.unreachable('send should throw when the mailbox is full');
  } catch (err) {
    assert.instance(err, MailboxFullError);
    assert.is((err as MailboxFullError).code, 'mailbox_full');
  }
  { const err = await rejection(actor.ask({ type: 'get' })); assert.ok(err instanceof MailboxFullError); }
  hold.open();
  await held;
  await actor.stop();
  assert.is(actor.total, 6);
  assert.equal(actor.handled, ['wait:held', 'add:1', 'add:2', 'add:3']);
});

test('an urgent message jumps ahead of queued normal ones and urgent ones keep their order', async () => {
  const actor = makeCounter('c8', new FakeClock(), captureLog(), 3);
  await actor.start();
  const hold = gate();
  actor.send({ type: 'wait', until: hold.promise, label: 'first' });
  await new Promise<void>((r) => setImmediate(r));
  actor.send({ type: 'note', label: 'n1' });
  actor.send({ type: 'note', label: 'n2' });
  actor.send({ type: 'note', label: 'n3' });
  actor.send({ type: 'note', label: 'u1' }, { priority: 'urgent' }); // accepted although normal lane is full
  actor.send({ type: 'note', label: 'u2' }, { priority: 'urgent' });
  hold.open();
  await actor.stop();
  assert.equal(actor.handled, ['wait:first', 'note:u1', 'note:u2', 'note:n1', 'note:n2', 'note:n3']);
});

test('stop drains queued messages, runs onStop once, then refuses new messages', async () => {
  const actor = makeCounter('c9', new FakeClock(), captureLog());
  await actor.start();
  const asks = [1, 2, 3].map((n) => actor.ask({ type: 'add', n }));
  const stopped = actor.stop();
  assert.is(actor.status, 'stopping');
  assert.throws(() => actor.send({ type: 'add', n: 9 }), (err: unknown) => err instanceof ActorStoppedError);
  await stopped;
  assert.equal(await Promise.all(asks), [1, 3, 6]);
  assert.is(actor.status, 'stopped');
  assert.is(actor.stops, 1);
  await actor.stop();
  assert.is(actor.stops, 1);
  { const err = await rejection(actor.ask({ type: 'get' })); assert.ok(err instanceof ActorStoppedError); }
});

test('stop without draining rejects queued asks with ActorStoppedError but finishes the running one', async () => {
  const actor = makeCounter('c10', new FakeClock(), captureLog());
  await actor.start();
  const hold = gate();
  const running = actor.ask({ type: 'wait', until: hold.promise, label: 'running' });
  await new Promise<void>((r) => setImmediate(r));
  const queued = actor.ask({ type: 'add', n: 1 });
  const stopped = actor.stop({ drain: false });
  { const err = await rejection(queued); assert.ok(err instanceof ActorStoppedError && err.code === 'actor_stopped'); }
  hold.open();
  await running;
  await stopped;
  assert.equal(actor.handled, ['wait:running']);
});

test('an actor whose onStart fails stops and rejects what was queued', async () => {
  const log = captureLog();
  const actor = makeCounter('c11', new FakeClock(), log);
  (actor as unknown as { onStart: () => void }).onStart = () => { throw new Error('store down'); };
  const queued = actor.ask({ type: 'get' });
  assert.match(((await rejection(actor.start())) as Error).message, /store down/);
  assert.match(((await rejection(queued)) as Error).message, /store down/);
  assert.is(actor.status, 'stopped');
  assert.is(log.errors[0].obj.actorId, 'c11');
});

test.run();
