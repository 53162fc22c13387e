/**
 * The one module that owns piscina. Tasks run in two lanes, each its own pool of threads, so a visitor's
 * image never waits behind a knowledge document: `interactive` (image resizing for chat uploads and faces)
 * and `ingest` (parsing, chunking, embeddings; threads at a lower CPU priority). Every task has a time
 * limit, counted from the moment it starts on a thread (its waits for a processor left out: ./task-clock.ts),
 * and every thread a heap limit; a task past either is ended with its thread (a fresh one takes its place) and
 * rejects with TaskTimeoutError or TaskMemoryError. A third lane, `search`, holds the embedded embedding model's
 * query embeddings (one thread, made on the first such search): the model loads there once, a search never
 * waits behind a document's batch, and an image never waits behind the model. A fourth, `isolated`, runs each
 * task in a child process of its own with a cap on its whole memory (./process-lane.ts): PDFs, whose parser keeps
 * most of its memory outside the V8 heap. A task is a file in ./tasks/ whose default export is its function
 * wrapped in reportsStart (./started.ts).
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ProcessEnded, ProcessLane } from './process-lane.js';
import { TASK_STARTED, TASK_WAITS, type TaskEnvelope } from './started.js';
import { startTaskClock, type WaitCount } from './task-clock.js';
import type { ResizeImageInput, ResizeImageOutput } from './tasks/resize-image.js';
import type { ParseDocumentInput, ParseDocumentOutput } from './tasks/parse-document.js';
import type { ChunkDocumentInput, ChunkDocumentOutput } from './tasks/chunk-document.js';
import type { EmbedBatchInput, EmbedBatchOutput } from './tasks/embed-batch.js';

/** Every task: its payload and what the caller receives. Add a task here, in TASKS, and a file in ./tasks/ of the same name. */
export interface TaskTypes {
  'resize-image': { payload: ResizeImageInput; result: Omit<ResizeImageOutput, 'data'> & { data: Buffer } };
  'parse-document': { payload: ParseDocumentInput; result: ParseDocumentOutput };
  'chunk-document': { payload: ChunkDocumentInput; result: ChunkDocumentOutput };
  'embed-batch': { payload: EmbedBatchInput; result: EmbedBatchOutput };
}
export type TaskName = keyof TaskTypes;
export type TaskPayload<N extends TaskName> = TaskTypes[N]['payload'];
export type TaskResult<N extends TaskName> = TaskTypes[N]['result'];
export type Lane = 'interactive' | 'ingest' | 'search' | 'isolated';
type ThreadLane = Exclude<Lane, 'isolated'>;

/** Each task's lane and time limit. embed-batch waits on a provider: 60 s per request, with retries. */
const TASKS: { readonly [N in TaskName]: { lane: ThreadLane; timeLimitMs: number } } = Object.freeze({
  'resize-image': { lane: 'interactive', timeLimitMs: 20_000 },
  'parse-document': { lane: 'ingest', timeLimitMs: 30_000 },
  'chunk-document': { lane: 'ingest', timeLimitMs: 30_000 },
  'embed-batch': { lane: 'ingest', timeLimitMs: 240_000 },
});

/**
 * Payloads that run in the isolated lane (a process each) instead of the task's own. pdf.js decodes a PDF's streams
 * into buffers outside the V8 heap, which a thread's heap limit does not count: an 821 KB PDF held 3.4 GB.
 */
const ISOLATED: { readonly [N in TaskName]?: (payload: TaskPayload<N>) => boolean } = Object.freeze({
  'parse-document': (p: ParseDocumentInput) => p.type === 'pdf',
});

/** Structured clone turns a Buffer into a plain Uint8Array; each task restores what its callers expect. */
const revive: { [N in TaskName]: (raw: never) => TaskResult<N> } = {
  'resize-image': (raw: ResizeImageOutput) => ({ ...raw, data: Buffer.from(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength) }),
  'parse-document': (raw: ParseDocumentOutput) => raw,
  'chunk-document': (raw: ChunkDocumentOutput) => raw,
  'embed-batch': (raw: EmbedBatchOutput) => raw,
};

export interface LaneOptions {
  minThreads: number;
  maxThreads: number;
  /** A thread above minThreads with no work for this long exits. */
  idleTimeoutMs: number;
  /** Tasks waiting for a thread; more are refused with PoolBusyError. */
  maxQueue: number;
  /** V8 heap of each thread (old generation); a task that needs more is ended with TaskMemoryError. */
  maxHeapMb: number;
  /** Added to the threads' nice value (Linux): a higher number yields the CPU to the server and the other lane. */
  niceIncrement: number;
}

/** The isolated lane: one child process per task. */
export interface IsolatedLaneOptions {
  /** Processes at once. */
  maxProcesses: number;
  /** Tasks waiting for a process; more are refused with PoolBusyError. */
  maxQueue: number;
  /** Resident memory of each process, native buffers included (and its V8 heap); past it the task ends with TaskMemoryError. */
  maxMemoryMb: number;
  niceIncrement: number;
}

export interface PoolOptions {
  interactive?: Partial<LaneOptions>;
  ingest?: Partial<LaneOptions>;
  search?: Partial<LaneOptions>;
  isolated?: Partial<IsolatedLaneOptions>;
  /** Per task, replacing the limits above. */
  timeLimitsMs?: Partial<Record<TaskName, number>>;
}

export interface RunTaskOptions {
  /** Aborting rejects with an AbortError; a task already running has its thread terminated. */
  signal?: AbortSignal;
  /** The lane, when not the task's own: work a visitor waits for (a chat turn's query embedding) goes `interactive`. */
  lane?: Lane;
  /** ArrayBuffers to move instead of copy. Only list buffers nobody else uses (not Node's pooled small Buffers). */
  transferList?: ArrayBuffer[];
}

/**
 * The transferList that moves a view's buffer to the task instead of copying it: only a buffer the view covers
 * whole (Node's small Buffers share a pooled one) and not shared memory (which is never copied anyway). The
 * caller must not use the view afterwards.
 */
export function ownBuffer(view: Uint8Array): ArrayBuffer[] {
  const b = view.buffer;
  return b instanceof ArrayBuffer && view.byteOffset === 0 && view.byteLength === b.byteLength ? [b] : [];
}

export class PoolBusyError extends Error {
  readonly code = 'pool_busy' as const;
  constructor(readonly maxQueue: number) {
    super(`worker pool queue is full (${maxQueue} tasks waiting)`);
    this.name = 'PoolBusyError';
  }
}

export class TaskTimeoutError extends Error {
  readonly code = 'task_timeout' as const;
  constructor(readonly task: TaskName, readonly limitMs: number) {
    super(`task ${task} ran longer than its ${limitMs / 1000} s limit and was ended`);
    this.name = 'TaskTimeoutError';
  }
}

export class TaskMemoryError extends Error {
  readonly code = 'task_out_of_memory' as const;
  constructor(readonly task: TaskName, readonly limitMb: number) {
    super(`task ${task} needed more than its ${limitMb} MB of memory and was ended`);
    this.name = 'TaskMemoryError';
  }
}

// Sized for a small machine: the ingest lane leaves a core to the server's main thread when it can.
const cores = availableParallelism();
const LANE_DEFAULTS: Readonly<Record<ThreadLane, Readonly<LaneOptions>>> = Object.freeze({
  interactive: Object.freeze({ minThreads: 1, maxThreads: Math.max(1, Math.min(2, cores)), idleTimeoutMs: 30_000, maxQueue: 64, maxHeapMb: 256, niceIncrement: 0 }),
  ingest: Object.freeze({ minThreads: 1, maxThreads: Math.max(1, Math.min(4, cores - 1)), idleTimeoutMs: 30_000, maxQueue: 256, maxHeapMb: 512, niceIncrement: 10 }),
  search: Object.freeze({ minThreads: 1, maxThreads: 1, idleTimeoutMs: 30_000, maxQueue: 64, maxHeapMb: 256, niceIncrement: 0 }),
});
const ISOLATED_DEFAULTS: Readonly<IsolatedLaneOptions> = Object.freeze({ maxProcesses: 1, maxQueue: 256, maxMemoryMb: 768, niceIncrement: 10 });

// Under tsx this module is pool.ts and the tasks are .ts; after the build both are .js in the same layout.
const TASK_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

interface LaneState {
  pool: Piscina;
  options: LaneOptions;
  /** Tasks submitted and not settled. */
  inFlight: number;
  /** Tasks started on a thread and not settled. */
  running: number;
  completed: number;
  /** Tasks ended for passing a limit (each took its thread with it). */
  ended: number;
}

let laneOptions: Record<ThreadLane, LaneOptions> = { ...LANE_DEFAULTS };
let isolatedOptions: IsolatedLaneOptions = { ...ISOLATED_DEFAULTS };
let isolatedLane: ProcessLane | undefined;
let timeLimits: Record<TaskName, number> = limitsOf(TASKS);
const lanes: Partial<Record<ThreadLane, LaneState>> = {};
/** Tasks submitted and not settled: called when their thread says they started (with its count of waits). */
const onStart = new Map<number, (waits: WaitCount | null) => void>();
let nextId = 1;
let sharpLoaded: Promise<unknown> | undefined;
/** Told of every settled task (metrics: src/metrics/samplers.ts); null when nobody listens. */
let taskObserver: ((task: TaskName, outcome: 'ok' | 'error', ms: number) => void) | null = null;
export function observeTasks(fn: typeof taskObserver): void { taskObserver = fn; }

function limitsOf(tasks: typeof TASKS): Record<TaskName, number> {
  return Object.fromEntries(Object.entries(tasks).map(([n, t]) => [n, t.timeLimitMs])) as Record<TaskName, number>;
}

function checkLane(lane: ThreadLane, o: LaneOptions): void {
  for (const field of ['minThreads', 'maxThreads', 'maxQueue', 'maxHeapMb', 'niceIncrement'] as const) {
    if (!Number.isInteger(o[field]) || o[field] < 0) throw new TypeError(`pool option ${lane}.${field} must be a whole number, got ${o[field]}`);
  }
  // piscina starts a thread in place of an ended one only to keep minThreads: with none kept, a task queued
  // behind an ended task would wait for ever.
  if (o.minThreads < 1) throw new TypeError(`pool option ${lane}.minThreads must be at least 1, got ${o.minThreads}`);
  if (o.minThreads > o.maxThreads) throw new TypeError(`pool option ${lane}.minThreads (${o.minThreads}) must not exceed maxThreads (${o.maxThreads})`);
  if (o.maxHeapMb < 16) throw new TypeError(`pool option ${lane}.maxHeapMb must be at least 16, got ${o.maxHeapMb}`);
  if (!Number.isFinite(o.idleTimeoutMs) || o.idleTimeoutMs < 0) throw new TypeError(`pool option ${lane}.idleTimeoutMs must be a non-negative number, got ${o.idleTimeoutMs}`);
}

/** Sets lane sizes and limits (merged over the defaults). Only while no lane is running: call closePool first. */
export function configurePool(overrides: PoolOptions): void {
  if (lanes.interactive || lanes.ingest || lanes.search || isolatedLane) throw new Error('configurePool must be called before the first runTask (or after closePool)');
  const merged = {
    interactive: { ...LANE_DEFAULTS.interactive, ...overrides.interactive },
    ingest: { ...LANE_DEFAULTS.ingest, ...overrides.ingest },
    search: { ...LANE_DEFAULTS.search, ...overrides.search },
  };
  for (const name of ['interactive', 'ingest', 'search'] as const) checkLane(name, merged[name]);
  const isolated = { ...ISOLATED_DEFAULTS, ...overrides.isolated };
  for (const field of ['maxProcesses', 'maxQueue', 'maxMemoryMb', 'niceIncrement'] as const) {
    if (!Number.isInteger(isolated[field]) || isolated[field] < 0) throw new TypeError(`pool option isolated.${field} must be a whole number, got ${isolated[field]}`);
  }
  if (isolated.maxProcesses < 1) throw new TypeError(`pool option isolated.maxProcesses must be at least 1, got ${isolated.maxProcesses}`);
  if (isolated.maxMemoryMb < 64) throw new TypeError(`pool option isolated.maxMemoryMb must be at least 64, got ${isolated.maxMemoryMb}`);
  const times = { ...limitsOf(TASKS), ...overrides.timeLimitsMs };
  for (const [task, ms] of Object.entries(times)) {
    if (!(task in TASKS)) throw new TypeError(`pool option timeLimitsMs.${task}: no such task`);
    if (!Number.isFinite(ms) || ms <= 0) throw new TypeError(`pool option timeLimitsMs.${task} must be a positive number of milliseconds, got ${ms}`);
  }
  laneOptions = merged;
  isolatedOptions = isolated;
  timeLimits = times;
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

function lane(name: ThreadLane): LaneState {
  const existing = lanes[name];
  if (existing) return existing;
  const options = laneOptions[name];
  const pool = new Piscina({
    minThreads: options.minThreads,
    maxThreads: options.maxThreads,
    idleTimeout: options.idleTimeoutMs,
    niceIncrement: options.niceIncrement,
    resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    execArgv: workerExecArgv(),
  });
  pool.on('message', (msg: unknown) => {
    const m = msg as Record<string, unknown> | null;
    const id = m?.[TASK_STARTED];
    if (typeof id === 'number') onStart.get(id)?.((m?.[TASK_WAITS] as WaitCount | null | undefined) ?? null);
  });
  // A thread that dies with no task on it has no caller to tell; piscina replaces it.
  pool.on('error', () => {});
  return (lanes[name] = { pool, options, inFlight: 0, running: 0, completed: 0, ended: 0 });
}

/**
 * Runs a task in its lane. Rejects with the task's error, PoolBusyError when the lane's queue is full,
 * TaskTimeoutError or TaskMemoryError past a limit, or AbortError when `signal` aborts.
 */
export async function runTask<N extends TaskName>(name: N, payload: TaskPayload<N>, opts: RunTaskOptions = {}): Promise<TaskResult<N>> {
  // sharp's shared libraries must be opened by the main thread first, or a worker exiting unloads them (glibc).
  if (name === 'resize-image') await (sharpLoaded ??= import('sharp'));
  opts.signal?.throwIfAborted();
  const laneName = opts.lane ?? ((ISOLATED[name] as ((p: TaskPayload<N>) => boolean) | undefined)?.(payload) ? 'isolated' : TASKS[name].lane);
  if (laneName === 'isolated') return runIsolated(name, payload, opts);
  const state = lane(laneName);
  // Counted here: piscina does not bound its queue for tasks that carry an abort signal (all of ours).
  if (state.inFlight >= state.options.maxThreads + state.options.maxQueue) throw new PoolBusyError(state.options.maxQueue);
  const limitMs = timeLimits[name];
  const id = nextId++;
  // One controller ends the task for the caller's abort or the time limit; the clock starts with the task and
  // leaves out the thread's waits for a processor (./task-clock.ts).
  const stop = new AbortController();
  const onAbort = () => stop.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let stopClock: (() => void) | undefined;
  let timedOut = false;
  onStart.set(id, (waits) => {
    state.running++;
    stopClock = startTaskClock(limitMs, waits, () => { timedOut = true; stop.abort(new TaskTimeoutError(name, limitMs)); });
  });
  state.inFlight++;
  const submittedAt = performance.now();
  let outcome: 'ok' | 'error' = 'error';
  try {
    const envelope: TaskEnvelope<TaskPayload<N>> = { id, payload };
    const raw: unknown = await state.pool.run(envelope, { filename: taskUrl(name), signal: stop.signal, transferList: opts.transferList });
    outcome = 'ok';
    return (revive[name] as (r: unknown) => TaskResult<N>)(raw);
  } catch (err) {
    if (timedOut) { state.ended++; throw new TaskTimeoutError(name, limitMs); }
    if ((err as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY') { state.ended++; throw new TaskMemoryError(name, state.options.maxHeapMb); }
    throw err;
  } finally {
    if (stopClock) { stopClock(); state.running--; }
    state.inFlight--;
    state.completed++;
    onStart.delete(id);
    opts.signal?.removeEventListener('abort', onAbort);
    taskObserver?.(name, outcome, performance.now() - submittedAt);
  }
}

/** A task in a child process of its own (./process-lane.ts), with the same errors as a thread's. */
async function runIsolated<N extends TaskName>(name: N, payload: TaskPayload<N>, opts: RunTaskOptions): Promise<TaskResult<N>> {
  const processes = (isolatedLane ??= new ProcessLane(isolatedOptions));
  const submittedAt = performance.now();
  let outcome: 'ok' | 'error' = 'error';
  try {
    const raw = await processes.run({ url: taskUrl(name), envelope: { id: nextId++, payload }, timeLimitMs: timeLimits[name], signal: opts.signal, execArgv: workerExecArgv() ?? process.execArgv });
    outcome = 'ok';
    return (revive[name] as (r: unknown) => TaskResult<N>)(raw);
  } catch (err) {
    if (!(err instanceof ProcessEnded)) throw err;
    const end = err.end;
    if (end.kind === 'memory') throw new TaskMemoryError(name, processes.options.maxMemoryMb);
    if (end.kind === 'time') throw new TaskTimeoutError(name, timeLimits[name]);
    if (end.kind === 'busy') throw new PoolBusyError(processes.options.maxQueue);
    throw Object.assign(new Error('The task has been aborted', { cause: end.reason }), { name: 'AbortError' });
  } finally {
    taskObserver?.(name, outcome, performance.now() - submittedAt);
  }
}

export interface LaneStats { threads: number; queued: number; running: number; completed: number; ended: number }

/** Pool numbers per lane, for metrics and tests. */
export function poolStats(): Record<Lane, LaneStats> {
  const of = (s: LaneState | undefined): LaneStats => s
    ? { threads: s.pool.threads.length, queued: s.pool.queueSize, running: s.running, completed: s.completed, ended: s.ended }
    : { threads: 0, queued: 0, running: 0, completed: 0, ended: 0 };
  const p = isolatedLane;
  const isolated = p ? { threads: p.processes, queued: p.queued, running: p.running, completed: p.completed, ended: p.ended } : of(undefined);
  return { interactive: of(lanes.interactive), ingest: of(lanes.ingest), search: of(lanes.search), isolated };
}

/** Waits for running tasks, then ends the threads; ends the isolated lane's processes. A later runTask starts fresh lanes. */
export async function closePool(): Promise<void> {
  isolatedLane?.close();
  isolatedLane = undefined;
  const current = [lanes.interactive, lanes.ingest, lanes.search];
  delete lanes.interactive;
  delete lanes.ingest;
  delete lanes.search;
  await Promise.all(current.map((s) => s?.pool.close()));
}
