import type { Readable } from 'node:stream';

/** Chunks queued before the stream is paused, and the level at which it flows again (backpressure). */
const HIGH = 16;
const LOW = 4;

/**
 * A Node stream's chunks as a plain async iterator, for SDKs that iterate a response body.
 *
 * Readable's own iterator is an async generator over 'readable' events that allocates several promises,
 * closures and tick callbacks per chunk; with 1,000 replies streaming at once that garbage set the server's
 * scavenge rate (docs/performance.md, Chat). 'data' events and a short queue do the same job with one promise
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
  stream.on('data', (chunk: Buffer) => {
    if (waiter) {
      const w = waiter;
      waiter = null;
      w.resolve({ value: chunk, done: false });
    } else if (queue.push(chunk) >= HIGH) stream.pause();
  });
  stream.once('end', () => { ended = true; wake(); });
  stream.once('error', (err) => { failure ??= err; ended = true; wake(); });
  stream.once('close', () => {
    if (!ended) failure ??= Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    ended = true;
    wake();
  });
  const it: AsyncIterableIterator<Buffer> = {
    next() {
      if (queue.length) {
        const value = queue.shift()!;
        if (queue.length <= LOW && stream.isPaused() && !ended) stream.resume();
        return Promise.resolve({ value, done: false });
      }
      if (failure) return Promise.reject(failure);
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => { waiter = { resolve, reject }; });
    },
    return() {
      queue.length = 0;
      if (!ended) { ended = true; stream.destroy(); }
      failure = null;
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() { return it; },
  };
  return it;
}
