/**
 * Silero VAD (v5), one model per process shared by every cascade session. Frames of all sessions waiting at the
 * same moment run as one batch (the model takes a batch dimension, each row with its own recurrent state): a batch
 * of 200 costs about a quarter of 200 single runs (docs/voice.md, Cascade, VAD figures). The model runs on a thread
 * of its own, so the event loop only copies frames and states in and out.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** Silero v5 at 16 kHz: 512 new samples a frame (32 ms), with the last 64 of the previous frame in front. */
export const VAD_RATE = 16_000;
export const FRAME_SAMPLES = 512;
const CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 128;
/** How long the model may take to load on its thread. */
const LOAD_TIMEOUT_MS = 30_000;

/** The recurrent state and context of one audio stream (one session). */
export class VadStream {
  readonly state = new Float32Array(STATE_SIZE);
  readonly context = new Float32Array(CONTEXT_SAMPLES);
  /** A frame of this stream is in the batch being run (its next frame waits for the next batch). */
  busy = false;
}

interface Pending { stream: VadStream; frame: Float32Array; resolve(p: number): void; reject(err: Error): void }

/** The model file ships inside an npm package (the Silero VAD v5 weights, MIT licensed). */
function modelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@ricky0123/vad-web/package.json')), 'dist', 'silero_vad_v5.onnx');
}

/** A batch for the model's thread: frames with their context, and the rows' recurrent states (moved, not copied). */
interface VadBatch { id: number; n: number; width: number; input: Float32Array; state: Float32Array }
type VadAnswer = { id: number; probs: Float32Array; stateN: Float32Array } | { id: number; error: string };

/**
 * The model's thread, as plain JavaScript (CommonJS, run with eval): onnxruntime-node's run() computes on the
 * thread that calls it, so on the main thread a batch of 200 sessions' frames would hold every socket for
 * milliseconds. Kept as source text so it runs the same from the TypeScript sources (tests) and the build.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { InferenceSession, Tensor } = require(workerData.ortPath);
InferenceSession.create(workerData.modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' }).then((session) => {
  const sr = new Tensor('int64', BigInt64Array.from([BigInt(workerData.sampleRate)]), []);
  parentPort.on('message', async (m) => {
    // Asked to stop: the model is released before the thread ends (ending it mid-run aborts the process).
    if (m === 'close') { await session.release().catch(() => {}); parentPort.close(); return; }
    try {
      const out = await session.run({ input: new Tensor('float32', m.input, [m.n, m.width]), state: new Tensor('float32', m.state, [2, m.n, 128]), sr });
      const probs = Float32Array.from(out.output.data);
      const stateN = Float32Array.from(out.stateN.data);
      parentPort.postMessage({ id: m.id, probs, stateN }, [probs.buffer, stateN.buffer]);
    } catch (err) {
      parentPort.postMessage({ id: m.id, error: String(err && err.message || err) });
    }
  });
  parentPort.postMessage({ ready: true });
}, (err) => parentPort.postMessage({ failed: String(err && err.message || err) }));
`;

/** Starts the model's thread and waits until the model is loaded. */
function startThread(): Promise<Worker> {
  return new Promise((resolve, reject) => {
    const require = createRequire(import.meta.url);
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      // Plain CommonJS: none of the parent's flags (a loader, --input-type=module) apply to it.
      execArgv: [],
      workerData: { modelPath: modelPath(), ortPath: require.resolve('onnxruntime-node'), sampleRate: VAD_RATE },
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    const timer = setTimeout(() => { void worker.terminate(); reject(new Error(`the model did not load within ${LOAD_TIMEOUT_MS / 1000} s`)); }, LOAD_TIMEOUT_MS);
    const settle = (err: Error | null) => { clearTimeout(timer); worker.off('message', first); if (err) { void worker.terminate(); reject(err); } else resolve(worker); };
    const first = (m: { ready?: boolean; failed?: string }) => settle(m.ready ? null : new Error(m.failed ?? 'the model thread did not start'));
    worker.on('message', first);
    worker.once('error', (err) => settle(err));
  });
}

export class SileroVad {
  private queue: Pending[] = [];
  private running = false;
  private thread: Promise<Worker> | null;
  private readonly answers = new Map<number, (a: VadAnswer) => void>();
  private seq = 0;
  /** Frames and batches run, for the figures in bench/ and the docs. */
  readonly stats = { frames: 0, batches: 0, waitMs: 0, waitMaxMs: 0 };

  private constructor(thread: Promise<Worker>) {
    this.thread = thread;
    void thread.then((w) => this.watch(w), () => {});
  }

  private static loading: Promise<SileroVad> | null = null;

  /** The process's model, loaded on first use (onnxruntime is loaded only when a cascade session needs it). */
  static shared(): Promise<SileroVad> {
    SileroVad.loading ??= (async () => {
      const thread = startThread();
      await thread;
      return new SileroVad(thread);
    })().catch((err) => {
      SileroVad.loading = null;
      throw err;
    });
    return SileroVad.loading;
  }

  /** Stops the model's thread (the server is shutting down); a later session starts it again. */
  static async shutdown(): Promise<void> {
    const loading = SileroVad.loading;
    SileroVad.loading = null;
    const vad = await loading?.catch(() => null);
    const worker = await vad?.thread?.catch(() => null);
    if (vad) vad.thread = null;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { void worker.terminate(); resolve(); }, 2000);
      worker.once('exit', () => { clearTimeout(timer); resolve(); });
      worker.postMessage('close');
    });
  }

  /** The probability that `frame` (FRAME_SAMPLES floats in -1..1) is speech, with `stream`'s state carried on. */
  probability(stream: VadStream, frame: Float32Array): Promise<number> {
    const asked = performance.now();
    // How long frames wait for their answer (queue, batch, thread): what turn detection adds on a busy server.
    const answered = (p: number) => {
      const ms = performance.now() - asked;
      this.stats.waitMs += ms;
      if (ms > this.stats.waitMaxMs) this.stats.waitMaxMs = ms;
      return p;
    };
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ stream, frame, resolve: (p: number) => resolve(answered(p)), reject });
      // Started after the current I/O callbacks, so frames of sessions that arrived together run as one batch.
      if (!this.running) { this.running = true; setImmediate(() => void this.drain()); }
    });
  }

  /** A thread that dies fails its batch; the next batch starts a new one. */
  private watch(worker: Worker): void {
    worker.on('message', (a: VadAnswer) => {
      const done = this.answers.get(a.id);
      this.answers.delete(a.id);
      if (!this.answers.size) worker.unref();
      done?.(a);
    });
    worker.once('exit', (code) => {
      this.thread = null;
      for (const done of this.answers.values()) done({ id: -1, error: `the voice activity thread stopped (exit code ${code})` });
      this.answers.clear();
    });
    // The thread keeps the process alive only while a batch is on it (listening to it refs it again).
    worker.unref();
  }

  /** Runs batches until nothing waits: each batch takes the oldest waiting frame of every stream. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch: Pending[] = [];
        const later: Pending[] = [];
        for (const p of this.queue) {
          if (p.stream.busy) later.push(p);
          else { p.stream.busy = true; batch.push(p); }
        }
        this.queue = later;
        await this.run(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    const n = batch.length;
    const width = CONTEXT_SAMPLES + FRAME_SAMPLES;
    const input = new Float32Array(n * width);
    // The state tensor is [2, batch, 128]: both halves of every row's state, gathered.
    const state = new Float32Array(2 * n * 128);
    batch.forEach(({ stream, frame }, b) => {
      input.set(stream.context, b * width);
      input.set(frame, b * width + CONTEXT_SAMPLES);
      stream.context.set(frame.subarray(FRAME_SAMPLES - CONTEXT_SAMPLES));
      state.set(stream.state.subarray(0, 128), b * 128);
      state.set(stream.state.subarray(128), (n + b) * 128);
    });
    let answer: VadAnswer;
    try {
      if (!this.thread) { this.thread = startThread(); this.watch(await this.thread); }
      const worker = await this.thread;
      const id = ++this.seq;
      answer = await new Promise<VadAnswer>((resolve) => {
        this.answers.set(id, resolve);
        worker.ref();
        worker.postMessage({ id, n, width, input, state } satisfies VadBatch, [input.buffer, state.buffer]);
      });
    } catch (err) {
      this.thread = null;
      answer = { id: 0, error: (err as Error).message };
    }
    if ('error' in answer) {
      for (const p of batch) { p.stream.busy = false; p.reject(new Error(answer.error)); }
      return;
    }
    const { probs, stateN } = answer;
    this.stats.frames += n;
    this.stats.batches++;
    batch.forEach(({ stream, resolve }, b) => {
      stream.state.set(stateN.subarray(b * 128, (b + 1) * 128), 0);
      stream.state.set(stateN.subarray((n + b) * 128, (n + b + 1) * 128), 128);
      stream.busy = false;
      resolve(probs[b]);
    });
  }
}
