/**
 * The one module that owns piscina. One lazily created pool runs every task; a task is a file in ./tasks/
 * whose default export takes the payload. Results come back to the caller (an actor turns them into a
 * message for its own mailbox).
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ResizeImageInput, ResizeImageOutput } from './tasks/resize-image.js';
import type { ParseDocumentInput, ParseDocumentOutput } from './tasks/parse-document.js';
import type { ChunkDocumentInput, ChunkDocumentOutput } from './tasks/chunk-document.js';
import type { EmbedBatchInput, EmbedBatchOutput } from './tasks/embed-batch.js';

/** Every task: its payload and what the caller receives. Add a task here and a file in ./tasks/ of the same name. */
export interface TaskTypes {
  'resize-image': { payload: ResizeImageInput; result: Omit<ResizeImageOutput, 'data'> & { data: Buffer } };
  'parse-document': { payload: ParseDocumentInput; result: ParseDocumentOutput };
  'chunk-document': { payload: ChunkDocumentInput; result: ChunkDocumentOutput };
  'embed-batch': { payload: EmbedBatchInput; result: EmbedBatchOutput };
}
export type TaskName = keyof TaskTypes;
export type TaskPayload<N extends TaskName> = TaskTypes[N]['payload'];
export type TaskResult<N extends TaskName> = TaskTypes[N]['result'];

/** Structured clone turns a Buffer into a plain Uint8Array; each task restores what its callers expect. */
const revive: { [N in TaskName]: (raw: never) => TaskResult<N> } = {
  'resize-image': (raw: ResizeImageOutput) => ({ ...raw, data: Buffer.from(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength) }),
  'parse-document': (raw: ParseDocumentOutput) => raw,
  'chunk-document': (raw: ChunkDocumentOutput) => raw,
  'embed-batch': (raw: EmbedBatchOutput) => raw,
};

export interface PoolOptions {
  minThreads?: number;
  maxThreads?: number;
  /** A thread above minThreads with no work for this long exits. */
  idleTimeoutMs?: number;
  /** Tasks waiting for a thread; more are refused with PoolBusyError. */
  maxQueue?: number;
}

export interface RunTaskOptions {
  /** Aborting rejects with an AbortError; a task already running has its thread terminated. */
  signal?: AbortSignal;
  /** ArrayBuffers to move instead of copy. Only list buffers nobody else uses (not Node's pooled small Buffers). */
  transferList?: ArrayBuffer[];
}

export class PoolBusyError extends Error {
  readonly code = 'pool_busy' as const;
  constructor(readonly maxQueue: number) {
    super(`worker pool queue is full (${maxQueue} tasks waiting)`);
    this.name = 'PoolBusyError';
  }
}

// Sized for a 2-core machine: one thread per core (the main thread mostly waits on I/O), at most 4.
const DEFAULTS: Readonly<Required<PoolOptions>> = Object.freeze({
  minThreads: 1,
  maxThreads: Math.max(1, Math.min(4, availableParallelism())),
  idleTimeoutMs: 30_000,
  maxQueue: 64,
});

// Under tsx this module is pool.ts and the tasks are .ts; after the build both are .js in the same layout.
const TASK_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

let options: Required<PoolOptions> = DEFAULTS;
let pool: Piscina | undefined;
let sharpLoaded: Promise<unknown> | undefined;

function checkOptions(o: Required<PoolOptions>): void {
  for (const field of ['minThreads', 'maxThreads', 'maxQueue'] as const) {
    if (!Number.isInteger(o[field]) || o[field] < 0) throw new TypeError(`pool option ${field} must be a whole number, got ${o[field]}`);
  }
  if (o.maxThreads < 1) throw new TypeError(`pool option maxThreads must be at least 1, got ${o.maxThreads}`);
  if (o.minThreads > o.maxThreads) throw new TypeError(`pool option minThreads (${o.minThreads}) must not exceed maxThreads (${o.maxThreads})`);
  if (!Number.isFinite(o.idleTimeoutMs) || o.idleTimeoutMs < 0) throw new TypeError(`pool option idleTimeoutMs must be a non-negative number, got ${o.idleTimeoutMs}`);
}

/** Sets pool sizes (merged over the defaults). Only before the first task: a running pool is not resized. */
export function configurePool(overrides: PoolOptions): void {
  if (pool) throw new Error('configurePool must be called before the first runTask');
  const merged = { ...DEFAULTS, ...overrides };
  checkOptions(merged);
  options = Object.freeze(merged);
}

/** Absolute file URL of a task module. */
export function taskUrl(name: TaskName): string {
  return new URL(`./tasks/${name}${TASK_EXT}`, import.meta.url).href;
}

function workerExecArgv(): string[] | undefined {
  // Workers inherit the parent's execArgv, which carries tsx when tests run `node --import tsx` or `tsx`.
  // If tsx was registered some other way, register it in the workers explicitly so .ts tasks load.
  if (TASK_EXT !== '.ts' || process.execArgv.some((a) => a.includes('tsx'))) return undefined;
  return [...process.execArgv, '--import', 'tsx'];
}

function getPool(): Piscina {
  pool ??= new Piscina({
    minThreads: options.minThreads,
    maxThreads: options.maxThreads,
    idleTimeout: options.idleTimeoutMs,
    maxQueue: options.maxQueue,
    execArgv: workerExecArgv(),
  });
  return pool;
}

/** Runs a task on the pool. Rejects with the task's error, PoolBusyError when the queue is full, or AbortError. */
export async function runTask<N extends TaskName>(name: N, payload: TaskPayload<N>, opts: RunTaskOptions = {}): Promise<TaskResult<N>> {
  opts.signal?.throwIfAborted();
  // sharp's shared libraries must be opened by the main thread first, or a worker exiting unloads them (glibc).
  if (name === 'resize-image') await (sharpLoaded ??= import('sharp'));
  const p = getPool();
  try {
    const raw: unknown = await p.run(payload, { filename: taskUrl(name), signal: opts.signal ?? null, transferList: opts.transferList });
    return (revive[name] as (r: unknown) => TaskResult<N>)(raw);
  } catch (err) {
    if (err instanceof Error && err.message === 'Task queue is at limit') throw new PoolBusyError(options.maxQueue);
    throw err;
  }
}

/** Pool numbers for metrics. */
export function poolStats(): { threads: number; queued: number; completed: number } {
  return pool ? { threads: pool.threads.length, queued: pool.queueSize, completed: pool.completed } : { threads: 0, queued: 0, completed: 0 };
}

/** Waits for running tasks, then ends the threads. A later runTask creates a fresh pool. */
export async function closePool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.close();
}
