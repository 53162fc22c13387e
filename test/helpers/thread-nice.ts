import { readdirSync } from 'node:fs';
import { getPriority } from 'node:os';

/** This process's threads' nice values (Linux: a nice value is a thread's; /proc/self/task lists the thread ids). */
export function threadNiceValues(): { main: number; others: number[] } {
  const others = readdirSync('/proc/self/task').map(Number).filter((tid) => tid !== process.pid);
  return { main: getPriority(process.pid), others: others.map((tid) => getPriority(tid)) };
}
