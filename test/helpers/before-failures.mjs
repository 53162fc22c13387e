/**
 * Loaded by scripts/test.mjs before each test file. uvu drops an error thrown by a `test.before` hook (its runner
 * returns from a `finally` block) and prints "(0 / N)" with no reason, and whatever the hook had started (servers,
 * a redis-server, child processes) then keeps the file alive until the runner's time limit. This prints the error
 * in uvu's failure shape, so the runner's summary names it, and ends the file 10 s later if nothing else does.
 */
import { test } from 'uvu';

const before = test.before;
const reported = (fn) => before(async (state) => {
  try {
    await fn(state);
  } catch (err) {
    console.error(`\n   FAIL  "test.before"\n    ${String(err?.stack ?? err).split('\n').join('\n    ')}\n`);
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 10_000).unref();
    throw err;
  }
});
reported.each = before.each;
test.before = reported;
