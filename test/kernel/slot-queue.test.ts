import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { flushMicrotasks } from '../../src/kernel/clock.js';
import { SlotQueue } from '../../src/kernel/slot-queue.js';

/** A job that stays open until the test finishes it. */
function pending() {
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => { finish = resolve; fail = reject; });
  return { done, finish, fail };
}

test('at most `slots` run at once; the rest start in the order they came', async () => {
  const q = new SlotQueue(2);
  const jobs = Array.from({ length: 5 }, pending);
  const started: number[] = [];
  const runs = jobs.map((j, i) => q.run(async () => { started.push(i); await j.done; }));
  await flushMicrotasks();
  assert.equal(started, [0, 1]);
  assert.is(q.running, 2);
  assert.is(q.queued, 3);
  jobs[1].finish();
  await flushMicrotasks();
  assert.equal(started, [0, 1, 2]);
  jobs[0].finish();
  await flushMicrotasks();
  assert.equal(started, [0, 1, 2, 3]);
  for (const j of jobs) j.finish();
  await Promise.all(runs);
  assert.equal(started, [0, 1, 2, 3, 4]);
  assert.is(q.running, 0);
  assert.is(q.queued, 0);
});

test('a freed slot goes to the first waiter, not to a caller that arrives as it is freed', async () => {
  const q = new SlotQueue(1);
  const first = pending();
  const order: string[] = [];
  const a = q.run(async () => { order.push('first'); await first.done; });
  const b = q.run(async () => { order.push('waiter'); });
  await flushMicrotasks();
  first.finish();
  const c = q.run(async () => { order.push('newcomer'); });
  await Promise.all([a, b, c]);
  assert.equal(order, ['first', 'waiter', 'newcomer']);
});

test('a waiter aborted while in line leaves it with the signal\'s reason and holds no slot', async () => {
  const q = new SlotQueue(1);
  const first = pending();
  const a = q.run(() => first.done);
  const ac = new AbortController();
  const started: string[] = [];
  const aborted = q.run(async () => { started.push('aborted'); }, ac.signal);
  const after = q.run(async () => { started.push('after'); });
  await flushMicrotasks();
  assert.is(q.queued, 2);
  ac.abort(new Error('visitor left'));
  const err = await aborted.then(() => null, (e: Error) => e);
  assert.is(err?.message, 'visitor left');
  assert.is(q.queued, 1);
  first.finish();
  await Promise.all([a, after]);
  assert.equal(started, ['after']);
  assert.is(q.running, 0);
});

test('an already aborted signal is refused at once, even with a slot free', async () => {
  const q = new SlotQueue(1);
  const err = await q.acquire(AbortSignal.abort(new Error('too late'))).then(() => null, (e: Error) => e);
  assert.is(err?.message, 'too late');
  assert.is(q.running, 0);
});

test('the slot is given back when the job fails, and the next one runs', async () => {
  const q = new SlotQueue(1);
  const job = pending();
  const failing = q.run(() => job.done);
  let ran = false;
  const next = q.run(async () => { ran = true; });
  job.fail(new Error('boom'));
  const err = await failing.then(() => null, (e: Error) => e);
  assert.is(err?.message, 'boom');
  await next;
  assert.ok(ran);
  assert.is(q.running, 0);
});

test('rejectWaiting sends the line away; slots held stay held until released', async () => {
  const q = new SlotQueue(1);
  await q.acquire();
  const waiting = [q.acquire(), q.acquire()].map((p) => p.then(() => 'got a slot', (e: Error) => e.message));
  q.rejectWaiting(new Error('closing'));
  assert.equal(await Promise.all(waiting), ['closing', 'closing']);
  assert.is(q.running, 1);
  q.release();
  assert.is(q.running, 0);
  assert.throws(() => q.release(), /no slot is held/);
});

test.run();
