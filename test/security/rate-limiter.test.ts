import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { RateLimiter } from '../../src/security/rate-limiter.js';

test('a key gets at most limit hits in any window, and the next as soon as the oldest leaves it', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter(clock, 60_000);
  assert.is(limiter.take('a', 3), 0);
  await clock.advance(10_000);
  assert.is(limiter.take('a', 3), 0);
  assert.is(limiter.take('a', 3), 0);
  assert.is(limiter.take('a', 3), 50_000, 'the first hit leaves the window in 50 s');
  assert.is(limiter.take('b', 3), 0, 'other keys are counted apart');
  await clock.advance(50_000);
  assert.is(limiter.take('a', 3), 0);
  assert.is(limiter.take('a', 3), 10_000);
});

test('a key with one hit is refused at a limit of 1 until its hit is a window old, then counts again from one', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter(clock, 60_000);
  assert.is(limiter.take('ip', 1), 0);
  await clock.advance(59_999);
  assert.is(limiter.take('ip', 1), 1);
  await clock.advance(1);
  assert.is(limiter.take('ip', 1), 0);
  assert.is(limiter.take('ip', 2), 0, 'a second hit within the window is allowed under a limit of 2');
  assert.ok(limiter.take('ip', 2) > 0);
});

test('a limit of 0 allows nothing and asks for a whole window', () => {
  const limiter = new RateLimiter(new FakeClock(), 3600_000);
  assert.is(limiter.take('visitor', 0), 3600_000);
  assert.is(limiter.take('visitor', 0), 3600_000);
});

test('a key hit far past its limit holds only the newest limit + 1 times, and stays full after one is forgiven', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter(clock, 3600_000);
  // An account under a distributed guessing attack: every failure is counted, refused or not.
  for (let i = 0; i < 10_000; i++) { limiter.hit('account', 20); if (i % 100 === 0) await clock.advance(1); }
  assert.is(limiter.held(), 21, 'memory does not grow with the number of failures inside the window');
  assert.is(limiter.count('account'), 21);
  limiter.forgive('account');
  assert.ok(limiter.count('account') >= 20, 'the owner signing in once does not release the brake');
  assert.ok(limiter.waitMs('account', 20) > 0);
});

test('keys whose window emptied are swept, so a flood of distinct addresses does not pile up', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter(clock, 60_000);
  for (let i = 0; i < 5_000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`, 5);
  assert.is(limiter.held(), 5_000);
  await clock.advance(60_000);
  limiter.take('one more', 5);
  assert.is(limiter.held(), 1, 'only the newest key is left');
});

test('waitMs tells the wait without taking, hit counts a refused attempt, reset clears the key', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter(clock, 1000);
  limiter.hit('k', 2);
  assert.is(limiter.waitMs('k', 2), 0);
  assert.is(limiter.count('k'), 1, 'waitMs records nothing');
  await clock.advance(400);
  limiter.hit('k', 2);
  assert.is(limiter.waitMs('k', 2), 600, 'the oldest of the two leaves the window in 600 ms');
  limiter.hit('k', 2);
  assert.is(limiter.waitMs('k', 2), 1000, 'the refused attempt counts: the two newest are both 400 ms old now');
  limiter.reset('k');
  assert.is(limiter.take('k', 2), 0);
});

test.run();
