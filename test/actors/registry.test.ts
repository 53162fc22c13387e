import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { ActorRegistry, ActorStoppedError } from '../../actors/runtime/index.js';
import { CounterActor, captureLog, gate, rejection } from './counter-actor.js';
import { createLogger } from '../../src/kernel/log.js';

function setup(idleMs = 60_000) {
  const clock = new FakeClock();
  const store = new Map<string, number>();
  const built: CounterActor[] = [];
  const registry = new ActorRegistry<CounterActor>({
    clock,
    log: captureLog(),
    idleMs,
    factory: (id, ctx) => {
      const actor = new CounterActor({ id, clock: ctx.clock, log: ctx.log }, store);
      built.push(actor);
      return actor;
    },
  });
  return { clock, store, built, registry };
}

test('get creates an actor on demand and returns the same one for the same id', async () => {
  const { registry, built } = setup();
  const a = registry.get('conv_1');
  assert.is(registry.get('conv_1'), a);
  const b = registry.get('conv_2');
  assert.is.not(a, b);
  assert.is(registry.size, 2);
  assert.is(built.length, 2);
  assert.is(await a.ask({ type: 'add', n: 3 }), 3);
  assert.is(a.status, 'running');
  await registry.stopAll();
});

test('an idle actor is passivated after idleMs without messages, and not before', async () => {
  const { registry, clock } = setup(1000);
  const a = registry.get('conv_1');
  await a.ask({ type: 'add', n: 1 });
  await clock.advance(600);
  await a.ask({ type: 'add', n: 1 }); // activity pushes passivation back
  await clock.advance(900);
  assert.is(registry.size, 1);
  assert.is(a.status, 'running');
  await clock.advance(100);
  assert.is(registry.size, 0);
  assert.is(a.status, 'stopped');
  assert.is(registry.metrics().passivated, 1);
  await registry.stopAll();
});

test('a busy actor is not passivated while its handler is still running', async () => {
  const { registry, clock } = setup(1000);
  const a = registry.get('conv_busy');
  const hold = gate();
  const running = a.ask({ type: 'wait', until: hold.promise, label: 'long' });
  await clock.advance(5000);
  assert.is(a.status, 'running');
  hold.open();
  await running;
  await clock.advance(999);
  assert.is(registry.size, 1);
  await clock.advance(1);
  assert.is(registry.size, 0);
  await registry.stopAll();
});

test('a passivated actor is rebuilt on the next get with the state it saved', async () => {
  const { registry, clock, built, store } = setup(1000);
  await registry.get('conv_1').ask({ type: 'add', n: 5 });
  await clock.advance(1000);
  assert.is(store.get('conv_1'), 5);
  const again = registry.get('conv_1');
  assert.is.not(again, built[0]);
  assert.is(await again.ask({ type: 'add', n: 1 }), 6);
  assert.is(registry.metrics().created, 2);
  await registry.stopAll();
});

test('metrics count live actors and queued messages', async () => {
  const { registry } = setup();
  const a = registry.get('a');
  registry.get('b');
  const hold = gate();
  const running = a.ask({ type: 'wait', until: hold.promise, label: 'x' });
  await new Promise<void>((r) => setImmediate(r));
  a.send({ type: 'note', label: '1' });
  a.send({ type: 'note', label: '2' });
  assert.equal(registry.metrics(), { actors: 2, queued: 2, created: 2, passivated: 0 });
  hold.open();
  await running;
  await registry.stopAll();
});

test('stopAll drains every mailbox before resolving and refuses new actors', async () => {
  const { registry, store } = setup();
  const a = registry.get('a');
  const b = registry.get('b');
  const hold = gate();
  a.send({ type: 'wait', until: hold.promise, label: 'slow' });
  for (let n = 1; n <= 3; n++) { a.send({ type: 'add', n }); b.send({ type: 'add', n: n * 10 }); }
  let done = false;
  const stopping = registry.stopAll().then(() => { done = true; });
  await new Promise<void>((r) => setImmediate(r));
  assert.is(done, false);
  hold.open();
  await stopping;
  assert.equal(a.handled, ['wait:slow', 'add:1', 'add:2', 'add:3']);
  assert.is(store.get('a'), 6);
  assert.is(store.get('b'), 60);
  assert.is(registry.size, 0);
  assert.throws(() => registry.get('c'), (err: unknown) => err instanceof ActorStoppedError);
});

test('an actor that fails to start is dropped, its asks reject, and the next get builds a new one', async () => {
  const { registry, built } = setup();
  let failNext = true;
  const original = CounterActor.prototype['onStart'];
  CounterActor.prototype['onStart'] = async function (this: CounterActor) {
    await Promise.resolve(); // like a store read: the ask below is queued before this fails
    if (failNext) { failNext = false; throw new Error('store unavailable'); }
    return original.call(this);
  };
  try {
    const first = registry.get('flaky');
    const startErr = (await rejection(first.ask({ type: 'get' }))) as Error;
    assert.match(startErr.message, /store unavailable/, startErr.message);
    assert.is(first.status, 'stopped');
    assert.is(registry.size, 0);
    const second = registry.get('flaky');
    assert.is(await second.ask({ type: 'add', n: 1 }), 1);
    assert.is(built.length, 2);
  } finally {
    CounterActor.prototype['onStart'] = original;
  }
  await registry.stopAll();
});

test('a pino logger serves as the actor logger', async () => {
  const registry = new ActorRegistry<CounterActor>({
    clock: new FakeClock(),
    log: createLogger('silent'),
    idleMs: 1000,
    factory: (id, ctx) => new CounterActor({ id, clock: ctx.clock, log: ctx.log }),
  });
  const a = registry.get('p');
  assert.match(((await rejection(a.ask({ type: 'fail', reason: 'logged, not thrown' }))) as Error).message, /logged/);
  assert.is(await a.ask({ type: 'add', n: 2 }), 2);
  await registry.stopAll();
});

test.run();
