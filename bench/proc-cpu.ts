/**
 * CPU time from /proc (Linux), for the benches' per-process and per-thread figures. utime and stime are the 12th
 * and 13th fields after the command name, in clock ticks (USER_HZ 100 on Linux: 10 ms each).
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 10;

/** [user, system] CPU ms of a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat file. */
export function statCpuMs(path: string): [number, number] {
  const stat = readFileSync(path, 'utf8');
  // The command name, in parentheses, may hold spaces and parentheses: the fields start after the last ')'.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(f[11]) * TICK_MS, Number(f[12]) * TICK_MS];
}

/** A process's CPU time so far (user + system, all its threads), in ms. */
export function processCpuMs(pid: number): number {
  const [user, sys] = statCpuMs(`/proc/${pid}/stat`);
  return user + sys;
}
