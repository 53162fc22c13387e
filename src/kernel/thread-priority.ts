import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority (adds `increment` to its nice value, at most 19) so that background
 * work (index writes, checkpoints) yields a core to the event loop when both want one. Linux only: there a nice
 * value belongs to a thread, and pid 0 names the calling thread; elsewhere it would lower the whole process, so
 * nothing is done. The worker pool's ingest lane gets the same through piscina's `niceIncrement`.
 */
export function lowerThreadPriority(increment: number): void {
  if (process.platform !== 'linux' || increment <= 0) return;
  try { setPriority(Math.min(19, getPriority() + increment)); } catch { /* not permitted: the priority stays */ }
}
