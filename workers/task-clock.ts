/**
 * A task's time limit that leaves out the time its thread waited for a processor. The ingest threads and the
 * isolated lane's processes run at a lower priority so that parsing yields to chat; on a busy machine they wait,
 * and a wall-clock limit would end a document that did nothing wrong (a 20-page PDF, 2.3 s alone, passed 30 s
 * beside a browser test on 2 cores). Linux counts that wait per thread: the second field of
 * /proc/<pid>/task/<tid>/schedstat is the time spent runnable on a run queue, in nanoseconds. Time the task
 * sleeps (waiting on a provider) still counts. Where the file cannot be read, the limit is plain wall-clock time.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** Milliseconds a thread has waited for a processor since it started, or null where Linux does not say. */
export function waitedMs(schedstat: string): number | null {
  try {
    const ns = Number(readFileSync(schedstat, 'utf8').split(' ')[1]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

let ownSchedstat: string | null | undefined;
/** The calling thread's schedstat file (`/proc/<pid>/task/<tid>/schedstat`), or null. */
export function threadSchedstat(): string | null {
  if (ownSchedstat === undefined) {
    try { ownSchedstat = `/proc/${readlinkSync('/proc/thread-self')}/schedstat`; } catch { ownSchedstat = null; }
    if (ownSchedstat !== null && waitedMs(ownSchedstat) === null) ownSchedstat = null;
  }
  return ownSchedstat;
}

/**
 * Calls `expire` once the task has had `limitMs` of time not spent waiting for a processor (read from `schedstat`
 * when given). Returns the function that stops the clock.
 */
export function startTaskClock(limitMs: number, schedstat: string | null, expire: () => void): () => void {
  const started = performance.now();
  const waitedAtStart = schedstat === null ? null : waitedMs(schedstat);
  let timer: NodeJS.Timeout;
  const check = () => {
    const waitedNow = waitedAtStart === null ? null : waitedMs(schedstat!);
    const used = performance.now() - started - (waitedNow === null ? 0 : waitedNow - waitedAtStart!);
    if (used >= limitMs) expire();
    else timer = setTimeout(check, limitMs - used);
  };
  timer = setTimeout(check, limitMs);
  return () => clearTimeout(timer);
}
