/**
 * A task's time limit that leaves out the time its thread waited for a processor. The ingest threads and the
 * isolated lane's processes run at a lower priority so that parsing yields to chat; on a busy machine they wait,
 * and a wall-clock limit would end a document that did nothing wrong (a 20-page PDF, 2.3 s alone, passed 30 s
 * beside a browser test on 2 cores). Linux counts that wait per thread: the second field of
 * /proc/<pid>/task/<tid>/schedstat is the time spent runnable on a run queue, in nanoseconds. Time the task
 * sleeps (waiting on a provider) still counts. Where the file cannot be read, the limit is plain wall-clock time.
 * The thread reads its own count when a task starts; the main thread reads it again only when the limit may have
 * passed (a read is some 50 µs).
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** Where a thread's waits are counted, and how long it had waited when its task started. */
export interface WaitCount { schedstat: string; waitedAtStart: number }

/** Milliseconds a thread has waited for a processor since it started, or null where Linux does not say. */
export function waitedMs(schedstat: string): number | null {
  try {
    const ns = Number(readFileSync(schedstat, 'utf8').split(' ')[1]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

/** The count of a thread or process by its schedstat file, now; null where it cannot be read. */
export function waitCountOf(schedstat: string): WaitCount | null {
  const waited = waitedMs(schedstat);
  return waited === null ? null : { schedstat, waitedAtStart: waited };
}

let ownSchedstat: string | null | undefined;
/** The calling thread's count (`/proc/<pid>/task/<tid>/schedstat`), now; null where Linux does not say. */
export function ownWaitCount(): WaitCount | null {
  if (ownSchedstat === undefined) {
    try { ownSchedstat = `/proc/${readlinkSync('/proc/thread-self')}/schedstat`; } catch { ownSchedstat = null; }
  }
  return ownSchedstat === null ? null : waitCountOf(ownSchedstat);
}

/**
 * Calls `expire` once the task has had `limitMs` of time not spent waiting for a processor (by `waits`, or
 * wall-clock time without it). Returns the function that stops the clock.
 */
export function startTaskClock(limitMs: number, waits: WaitCount | null, expire: () => void): () => void {
  const started = performance.now();
  let timer: NodeJS.Timeout;
  const check = () => {
    const waitedNow = waits === null ? null : waitedMs(waits.schedstat);
    const used = performance.now() - started - (waitedNow === null ? 0 : waitedNow - waits!.waitedAtStart);
    if (used >= limitMs) expire();
    else timer = setTimeout(check, limitMs - used);
  };
  timer = setTimeout(check, limitMs);
  return () => clearTimeout(timer);
}
