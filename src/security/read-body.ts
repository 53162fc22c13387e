import type { Readable } from 'node:stream';

/** What a body's reader is told: each chunk in order, then exactly one of end or error. */
export interface ChunkSink {
  data(chunk: Uint8Array): void;
  end(): void;
  error(err: unknown): void;
}

/** A body being read into a sink. */
export interface BodyReader {
  /** Stops reading and releases the body (the request ends); the sink hears nothing more. */
  cancel(): void;
}

const prematureClose = () => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/**
 * Reads a response body (a Node stream, or a web ReadableStream from fetch) into a sink, with no promise per
 * chunk for Node streams: 'data' events go straight to the sink. A stream that closes before its end is an error.
 *
 * Readable's own async iterator is an async generator over 'readable' events that allocates several promises,
 * closures and tick callbacks per chunk; with 1,000 replies streaming at once that garbage set the server's
 * scavenge rate (docs/performance.md, Chat). The sink takes each chunk as it comes: it must not fall behind.
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
    void (async () => {
      try {
        while (!settled) {
          const r = await reader.read();
          if (settled) return;
          if (r.done) { settle(); return; }
          sink.data(r.value);
        }
      } catch (err) { settle(err); }
    })();
    return { cancel() { settled = true; void reader.cancel().catch(() => {}); } };
  }
  body.on('data', (chunk: Buffer) => { if (!settled) sink.data(chunk); });
  body.on('end', () => settle());
  body.on('error', (err) => settle(err));
  body.on('close', () => settle(prematureClose()));
  return { cancel() { if (!settled) { settled = true; body.destroy(); } } };
}
