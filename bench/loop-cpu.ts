import { readFileSync } from 'node:fs';

const TICK_MS = 5;

/** Nanoseconds this thread ran on a core and waited for one, so far (Linux: /proc/thread-self/schedstat). */
function schedstat(): [number, number] {
  const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
  return [Number(run), Number(wait)];
}

/**
 * What a loaded machine does not stretch: how long the main thread ran on a core between two turns of a 5 ms timer
 * (the longest task, plus at most a tick of short ones). An event-loop delay also counts the time the thread waited
 * for a core; on a shared machine that wait (also reported: its largest share of one interval) can be most of it.
 * Linux only; elsewhere the figures are NaN.
 */
export function loopCpu() {
  let timer: NodeJS.Timeout | null = null;
  let last: [number, number] = [0, 0];
  let runs: number[] = [];
  let maxWait = 0;
  const ok = (() => { try { schedstat(); return true; } catch { return false; } })();
  return {
    start() {
      if (!ok) return;
      runs = [];
      maxWait = 0;
      last = schedstat();
      timer = setInterval(() => {
        const now = schedstat();
        runs.push((now[0] - last[0]) / 1e6);
        maxWait = Math.max(maxWait, (now[1] - last[1]) / 1e6);
        last = now;
      }, TICK_MS);
    },
    /** Milliseconds on a core per interval between timer turns (p99, max), and the most waited for a core in one. */
    stop(): { p99: number; max: number; maxWait: number } {
      if (timer) clearInterval(timer);
      timer = null;
      if (!runs.length) return { p99: NaN, max: NaN, maxWait: NaN };
      const sorted = runs.sort((a, b) => a - b);
      return { p99: sorted[Math.floor(0.99 * (sorted.length - 1))], max: sorted[sorted.length - 1], maxWait };
    },
  };
}
