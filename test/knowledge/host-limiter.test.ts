import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock, flushMicrotasks } from '../../src/kernel/clock.js';
import { CRAWL_DELAY_CAP_MS, HostLimiter } from '../../src/knowledge/host-limiter.js';

/** A request that stays open until finished by the test. */
function pending() {
  let finish!: () => void;
  const done = new Promise<void>((r) => { finish = r; });
  return { done, finish };
}

test('at most two requests run at once per host, across callers, and other hosts are not held up', async () => {
  const limiter = new HostLimiter(new FakeClock());
  const reqs = Array.from({ length: 4 }, pending);
  const started: number[] = [];
  const runs = reqs.map((r, i) => limiter.run('site.example', 0, undefined, async () => { started.push(i); await r.done; }));
  let other = false;
  const elsewhere = limiter.run('other.example', 0, undefined, async () => { other = true; });
  await flushMicrotasks();
  assert.equal(started, [0, 1]);
  assert.is(limiter.active('site.example'), 2);
  await elsewhere;
  assert.ok(other);
  reqs[0].finish();
  await flushMicrotasks();
  assert.equal(started, [0, 1, 2]);
  reqs[1].finish(); reqs[2].finish(); reqs[3].finish();
  await Promise.all(runs);
  assert.equal(started, [0, 1, 2, 3]);
  assert.is(limiter.active('site.example'), 0);
});

test('starts are spaced by the crawl delay, capped at 10 s', async () => {
  const clock = new FakeClock();
  const limiter = new HostLimiter(clock);
  const at: number[] = [];
  const t0 = clock.now();
  const runs = [0, 1, 2].map(() => limiter.run('slow.example', 60_000, undefined, async () => { at.push(clock.now() - t0); }));
  await flushMicrotasks();
  assert.equal(at, [0]);
  await clock.advance(CRAWL_DELAY_CAP_MS);
  assert.equal(at, [0, CRAWL_DELAY_CAP_MS]);
  await clock.advance(CRAWL_DELAY_CAP_MS);
  await Promise.all(runs);
  assert.equal(at, [0, CRAWL_DELAY_CAP_MS, 2 * CRAWL_DELAY_CAP_MS]);
});

test('a run aborted while waiting gives its place back', async () => {
  const clock = new FakeClock();
  const limiter = new HostLimiter(clock);
  const ac = new AbortController();
  const first = limiter.run('site.example', 5000, undefined, async () => {});
  const waiting = limiter.run('site.example', 5000, ac.signal, async () => {});
  await first;
  ac.abort(new Error('cancelled'));
  const err = await waiting.then(() => null, (e: Error) => e);
  assert.match(String(err?.message), /cancelled/);
  assert.is(limiter.active('site.example'), 0);
});

test.run();
