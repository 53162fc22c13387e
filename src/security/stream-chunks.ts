import type { Readable } from 'node:stream';

/** Chunks queued before the stream is paused, and the level at which it flows again (backpressure). */
const HIGH = 16;
const LOW = 4;

/** What a body's reader is told: each chunk in order, then exactly one of end or error. */
export interface ChunkSink {
  data(chunk: Uint8Array): void;
  end(): void;
  error(err: unknown): void;
}

/** Flow control over a body being read into a sink. */
export interface BodyReader {
  pause(): void;
  resume(): void;
  /** Stops reading and releases the body (the request ends); the sink hears nothing more. */
  cancel(): void;
}

const prematureClose = () => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/**
 * Reads a response body (a Node stream, or a web ReadableStream from fetch) into a sink, with no promise per
 * chunk for Node streams: 'data' events go straight to the sink. A stream that closes before its end is an error.
 */
export function readBody(body: Readable | ReadableStream<Uint8Array>, sink: ChunkSink): BodyReader {
  let settled = false;
  const settle = (err?: unknown) => {
    if (settled) return;
    settled = true;
    if (err === undefined) sink.end(); else sink.error(err);
  };
  if ('getReader' in body) {
    const reader = body.getReader();
    let paused = false;
    let pumping = false;
    const pump = async () => {
      if (pumping) return;
      pumping = true;
      try {
        while (!paused && !settled) {
          const r = await reader.read();
          if (settled) return;
          if (r.done) { settle(); return; }
          sink.data(r.value);
        }
      } catch (err) { settle(err); } finally { pumping = false; }
    };
    void pump();
    return {
      pause() { paused = true; },
      resume() { if (paused) { paused = false; void pump(); } },
      cancel() { settled = true; void reader.cancel().catch(() => {}); },
    };
  }
  body.on('data', (chunk: Buffer) => { if (!settled) sink.data(chunk); });
  body.on('end', () => settle());
  body.on('error', (err) => settle(err));
  body.on('close', () => settle(prematureClose()));
  return {
    pause() { body.pause(); },
    resume() { if (!settled) body.resume(); },
    cancel() { if (!settled) { settled = true; body.destroy(); } },
  };
}

/**
 * A Node stream's chunks as a plain async iterator, for SDKs that iterate a response body.
 *
 * Readable's own iterator is an async generator over 'readable' events that allocates several promises,
 * closures and tick callbacks per chunk; with 1,000 replies streaming at once that garbage set the server's
 * scavenge rate (docs/performance.md, Chat). readBody and a short queue do the same job with one promise
 * per chunk. Same contract: chunks in order, the stream's error rethrown, a premature close is an error, and
 * return() (a consumer that stops early) destroys the stream.
 */
export function streamChunks(stream: Readable): AsyncIterableIterator<Buffer> {
  const queue: Buffer[] = [];
  let waiter: { resolve(r: IteratorResult<Buffer>): void; reject(err: unknown): void } | null = null;
  let ended = false;
  let failure: unknown = null;
  const wake = () => {
    const w = waiter;
    if (!w) return;
    waiter = null;
    if (failure) w.reject(failure);
    else w.resolve({ value: undefined, done: true });
  };
  const reader = readBody(stream, {
    data(chunk) {
      if (waiter) {
        const w = waiter;
        waiter = null;
        w.resolve({ value: chunk as Buffer, done: false });
      } else if (queue.push(chunk as Buffer) >= HIGH) reader.pause();
    },
    end() { ended = true; wake(); },
    error(err) { failure = err; ended = true; wake(); },
  });
  const it: AsyncIterableIterator<Buffer> = {
    next() {
      if (queue.length) {
        const value = queue.shift()!;
        if (queue.length <= LOW && !ended) reader.resume();
        return Promise.resolve({ value, done: false });
      }
      if (failure) return Promise.reject(failure);
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => { waiter = { resolve, reject }; });
    },
    return() {
      queue.length = 0;
      if (!ended) { ended = true; reader.cancel(); }
      failure = null;
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() { return it; },
  };
  return it;
}
