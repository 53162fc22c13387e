/**
 * The isolated lane: each task in a child process of its own, for work whose memory a thread's heap limit does
 * not bound (pdf.js keeps decoded streams in buffers outside the V8 heap: a thread with 512 MB of heap grew the
 * server to 3.4 GB). The child has a heap limit, and its resident memory is read from /proc/<pid>/status every
 * 25 ms: past the limit it is killed, and all its memory, native included, goes back to the system with it.
 * Tasks are the same modules as the threads' (./tasks/), started by ./process-entry.ts. At most `maxProcesses`
 * run at once; more wait in order, up to `maxQueue`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { ChildReply, ChildRequest } from './process-entry.js';
import { SlotQueue } from '../src/kernel/slot-queue.js';
import type { TaskEnvelope } from './started.js';
import { startTaskClock, waitCountOf } from './task-clock.js';

export interface ProcessLaneOptions {
  maxProcesses: number;
  maxQueue: number;
  /** Resident memory of each child (heap, buffers, code); its V8 heap is limited to the same. */
  maxMemoryMb: number;
  niceIncrement: number;
}

export interface ProcessTask {
  /** File URL of the task module. */
  url: string;
  envelope: TaskEnvelope;
  timeLimitMs: number;
  signal?: AbortSignal;
  /** Extra Node options for the child (tsx under tests). */
  execArgv: string[];
}

/** Why a child was ended; the pool turns these into its own errors. */
export type ProcessEnd = { kind: 'memory' } | { kind: 'time' } | { kind: 'busy' } | { kind: 'aborted'; reason: unknown };
export class ProcessEnded extends Error {
  constructor(readonly end: ProcessEnd) { super(`task process ended: ${end.kind}`); }
}

const WATCH_MS = 25;
const ENTRY = new URL(`./process-entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/** Resident memory of a process in MB, or null where /proc is not there (the heap limit still holds). */
function residentMb(pid: number): number | null {
  try {
    const kb = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch { return null; }
}

export class ProcessLane {
  /** Process slots, handed out in order of arrival (an abort while waiting leaves the line). */
  private readonly slots: SlotQueue;
  private readonly live = new Set<ChildProcess>();
  inFlight = 0;
  completed = 0;
  ended = 0;
  private closed = false;

  constructor(readonly options: ProcessLaneOptions) { this.slots = new SlotQueue(options.maxProcesses); }

  get processes(): number { return this.live.size; }
  get running(): number { return this.slots.running; }
  get queued(): number { return this.slots.queued; }

  async run(task: ProcessTask): Promise<unknown> {
    task.signal?.throwIfAborted();
    if (this.inFlight >= this.options.maxProcesses + this.options.maxQueue) throw new ProcessEnded({ kind: 'busy' });
    this.inFlight++;
    try {
      await this.turn(task.signal);
      try {
        if (this.closed) throw closedError();
        return await this.spawn(task);
      } finally { this.slots.release(); }
    } finally {
      this.inFlight--;
      this.completed++;
    }
  }

  /** Waits for a free process slot (in order of arrival); an abort while waiting leaves the line. */
  private async turn(signal?: AbortSignal): Promise<void> {
    try {
      await this.slots.acquire(signal);
    } catch (err) {
      throw err instanceof ProcessEnded ? err : new ProcessEnded({ kind: 'aborted', reason: signal?.reason });
    }
  }

  private spawn(task: ProcessTask): Promise<unknown> {
    const { maxMemoryMb, niceIncrement } = this.options;
    const child = fork(ENTRY, [], {
      // An inspector port is the parent's: a child asking for the same one would not start.
      execArgv: [...task.execArgv.filter((a) => !a.startsWith('--inspect')), `--max-old-space-size=${maxMemoryMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.live.add(child);
    if (niceIncrement && child.pid) {
      try { setPriority(child.pid, Math.min(19, getPriority(child.pid) + niceIncrement)); } catch { /* not permitted: same priority */ }
    }
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString('utf8')).slice(-4096); });

    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      let ending: ProcessEnd | null = null;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        stopClock();
        task.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const end = (why: ProcessEnd) => {
        if (ending || settled) return;
        ending = why;
        this.ended++;
        child.kill('SIGKILL');
      };
      const onAbort = () => end({ kind: 'aborted', reason: task.signal?.reason });
      // A child that never gets as far as starting the task (stuck loading) is ended like one past its time. The
      // clock leaves out the child's waits for a processor (./task-clock.ts): it runs at a lower priority.
      const onTime = () => end({ kind: 'time' });
      let stopClock = startTaskClock(task.timeLimitMs, child.pid ? waitCountOf(`/proc/${child.pid}/task/${child.pid}/schedstat`) : null, onTime);
      task.signal?.addEventListener('abort', onAbort, { once: true });
      const watch = setInterval(() => {
        const mb = child.pid ? residentMb(child.pid) : null;
        if (mb !== null && mb > maxMemoryMb) end({ kind: 'memory' });
      }, WATCH_MS);

      child.on('message', (reply: ChildReply) => {
        if (ending) return;
        if ('started' in reply) { stopClock(); stopClock = startTaskClock(task.timeLimitMs, reply.waits, onTime); }
        else if ('result' in reply) finish(() => resolve(reply.result));
        else finish(() => reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }, reply.error.code ? { code: reply.error.code } : {})));
      });
      child.on('error', (err) => { end({ kind: 'aborted', reason: err }); });
      // 'close' comes after the IPC channel has closed too, so every message the child sent has been read.
      child.on('close', (code, signal) => {
        this.live.delete(child);
        if (ending) { const why = ending; return finish(() => reject(new ProcessEnded(why))); }
        // V8 past its heap limit aborts the process with this message.
        if (/heap out of memory|Allocation failed/i.test(stderr)) { this.ended++; return finish(() => reject(new ProcessEnded({ kind: 'memory' }))); }
        finish(() => reject(new Error(`the task's process ended without an answer (${signal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`)));
      });
      const request: ChildRequest = { url: task.url, envelope: task.envelope };
      child.send(request);
    });
  }

  /** Kills every child and refuses what waits (the server is stopping). */
  close(): void {
    this.closed = true;
    for (const child of this.live) child.kill('SIGKILL');
    this.slots.rejectWaiting(closedError());
  }
}

const closedError = () => new ProcessEnded({ kind: 'aborted', reason: new Error('the worker pool was closed') });
