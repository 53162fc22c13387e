/**
 * Wraps a task's function so its thread tells the main thread when the task starts: the pool's time limit
 * then counts the task's own work, not its wait in the queue or the loading of its module, nor (with the
 * thread's schedstat file, ./task-clock.ts) its waits for a processor.
 */
import { parentPort } from 'node:worker_threads';
import { ownWaitCount } from './task-clock.js';

/** What the pool posts to a thread: the task's payload and an id the start message names. */
export interface TaskEnvelope<P = unknown> {
  id: number;
  payload: P;
}

/** Key of the message a thread posts when a task starts; its value is the envelope id. */
export const TASK_STARTED = 'taskStarted';
/** Beside it: the thread's WaitCount at the start (./task-clock.ts), or null. */
export const TASK_WAITS = 'waits';

export function reportsStart<P, R>(task: (payload: P) => R): (envelope: TaskEnvelope<P>) => R {
  return (envelope) => {
    parentPort?.postMessage({ [TASK_STARTED]: envelope.id, [TASK_WAITS]: ownWaitCount() });
    return task(envelope.payload);
  };
}
