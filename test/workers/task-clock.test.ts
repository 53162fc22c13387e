/**
 * The task clock (workers/task-clock.ts) on real processes: a busy child at nice +19 shares one processor with a
 * busy child at nice +10 (both pinned there with taskset), which leaves it about an eighth of the processor in
 * slices some 30 ms apart; the rest of the machine keeps its other processors and most of that one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownWaitCount, startTaskClock, waitCountOf, waitedMs } from '../../workers/task-clock.js';

const BUSY = 'process.stdout.write("go"); const end = Date.now() + 30000; while (Date.now() < end);';

/** A busy Node process on processor 0; resolves once it is spinning. */
async function busyOnFirstProcessor(): Promise<ChildProcess> {
  const child = spawn('taskset', ['-c', '0', process.execPath, '-e', BUSY], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return child;
}

/**
 * The time a process's main thread has run, in ms: schedstat's first field (ns). The clock reads the second (time
 * waiting to run); the two and the time asleep add up to the time that passed. (/proc/<pid>/stat's tick counts are
 * sampled, and far off for a process that runs in short slices.)
 */
function ranMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

test('a process kept waiting for its processor is ended after the time it ran, not the time that passed', async () => {
  const [low, high] = await Promise.all([busyOnFirstProcessor(), busyOnFirstProcessor()]);
  try {
    setPriority(low.pid!, 19);
    setPriority(high.pid!, 10);
    const ranBefore = ranMs(low.pid!);
    const started = performance.now();
    await new Promise<void>((resolve) => startTaskClock(500, waitCountOf(`/proc/${low.pid}/task/${low.pid}/schedstat`), resolve));
    const wall = performance.now() - started;
    const ran = ranMs(low.pid!) - ranBefore;
    console.log(`  limit 500 ms: ended after ${wall.toFixed(0)} ms, having run ${ran.toFixed(0)} ms`);
    assert.ok(wall > 1000, `ended after ${wall} ms: the process was not kept waiting, so the test showed nothing`);
    // Linux adds a wait to schedstat when it ends (the process is given the processor), so the clock can count the
    // wait going on as time used: the process may be ended up to one wait early (some 30 ms here; more on a machine
    // busy with other work too).
    assert.ok(ran >= 250 && ran <= 600, `the process ran ${ran} ms before its 500 ms limit ended it`);
  } finally {
    low.kill('SIGKILL');
    high.kill('SIGKILL');
  }
});

test('a thread finds its own count of waits; without one the limit is the time that passed', async () => {
  const own = ownWaitCount()!;
  assert.is(own.schedstat, `/proc/${process.pid}/task/${process.pid}/schedstat`);
  assert.type(own.waitedAtStart, 'number');
  assert.ok(waitedMs(own.schedstat)! >= own.waitedAtStart);
  assert.is(waitCountOf('/proc/0/no-such-file'), null);
  const started = performance.now();
  await new Promise<void>((resolve) => startTaskClock(100, null, resolve));
  assert.ok(performance.now() - started >= 99);
});

test.run();
