import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Mailbox, MailboxFullError } from '../../actors/runtime/index.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

test('the mailbox processes items in order, each awaited before the next', async () => {
  const seen: string[] = [];
  const errors: unknown[] = [];
  let running = 0;
  const box = new Mailbox<string>(async (item) => {
    running++;
    assert.is(running, 1, 'never two at once');
    await tick();
    seen.push(item);
    running--;
  }, (err) => errors.push(err));
  box.start();
  ['a', 'b', 'c'].forEach((i) => box.enqueue(i));
  await box.whenIdle();
  assert.equal(seen, ['a', 'b', 'c']);
  assert.equal(errors, []);
});

test('nothing is processed before start', async () => {
  const seen: number[] = [];
  const box = new Mailbox<number>((n) => { seen.push(n); }, () => {});
  box.enqueue(1);
  await tick();
  assert.equal(seen, []);
  box.start();
  await box.whenIdle();
  assert.equal(seen, [1]);
});

test('overflow rejects the newest item and leaves the queue as it was', () => {
  const box = new Mailbox<number>(() => {}, () => {}, { capacity: 2, urgentCapacity: 1 });
  box.enqueue(1);
  box.enqueue(2);
  assert.throws(() => box.enqueue(3), (err: unknown) => err instanceof MailboxFullError && err.capacity === 2 && err.priority === 'normal');
  box.enqueue(4, { priority: 'urgent' });
  assert.throws(() => box.enqueue(5, { priority: 'urgent' }), (err: unknown) => err instanceof MailboxFullError && err.priority === 'urgent');
  box.enqueue(6, { bypassLimit: true });
  assert.equal(box.clear(), [4, 1, 2, 6]);
  assert.is(box.size, 0);
});

test('an item that throws is reported and the loop goes on', async () => {
  const errors: unknown[] = [];
  const seen: number[] = [];
  const box = new Mailbox<number>((n) => { if (n === 2) throw new Error('two'); seen.push(n); }, (err) => errors.push(err));
  box.start();
  [1, 2, 3].forEach((n) => box.enqueue(n));
  await box.whenIdle();
  assert.equal(seen, [1, 3]);
  assert.is((errors[0] as Error).message, 'two');
});

test('bad options are refused with the option named', () => {
  assert.throws(() => new Mailbox(() => {}, () => {}, { capacity: 0 }), /capacity/);
  assert.throws(() => new Mailbox(() => {}, () => {}, { urgentCapacity: 1.5 }), /urgentCapacity/);
});

test('handlers that finish synchronously and ones that wait keep their order, and a throwing one does not stop the rest', async () => {
  const seen: string[] = [];
  const errors: string[] = [];
  const box = new Mailbox<string>((item) => {
    if (item === 'boom') throw new Error('boom');
    if (item.startsWith('wait')) return new Promise<void>((r) => setTimeout(() => { seen.push(item); r(); }, 5));
    seen.push(item);
  }, (err) => errors.push((err as Error).message));
  box.start();
  for (const item of ['a', 'wait1', 'b', 'boom', 'c', 'wait2', 'd']) box.enqueue(item);
  await box.whenIdle();
  assert.equal(seen, ['a', 'wait1', 'b', 'c', 'wait2', 'd']);
  assert.equal(errors, ['boom']);
  assert.is(box.busy, false);
});

test.run();
