import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/clock.js';
import { RateLimiter } from '../../src/chat/rate-limit.js';

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

test.run();
