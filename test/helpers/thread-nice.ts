import { readdirSync, readFileSync } from 'node:fs';

/** This process's threads' nice values (Linux, /proc/self/task/<tid>/stat field 19), the main thread's first. */
export function threadNiceValues(): { main: number; others: number[] } {
  const nice = (tid: string) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  };
  const tids = readdirSync('/proc/self/task');
  return { main: nice(String(process.pid)), others: tids.filter((t) => t !== String(process.pid)).map(nice) };
}
