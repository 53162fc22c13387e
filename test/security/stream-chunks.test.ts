import { PassThrough, Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readBody, streamChunks, type ChunkSink } from '../../src/security/stream-chunks.js';

const collect = async (it: AsyncIterable<Buffer>) => { const out: string[] = []; for await (const c of it) out.push(String(c)); return out; };

test('gives every chunk in order, then ends', async () => {
  const s = new PassThrough();
  const got = collect(streamChunks(s));
  s.write('a'); s.write('b');
  setTimeout(() => s.end('c'), 5);
  assert.equal(await got, ['a', 'b', 'c']);
});

test('a slow reader pauses the stream and resumes it; nothing is lost', async () => {
  const s = new PassThrough({ highWaterMark: 1 });
  const it = streamChunks(s);
  for (let i = 0; i < 40; i++) s.write(String(i % 10));
  s.end();
  await new Promise((r) => setImmediate(r));
  assert.ok(s.isPaused(), 'paused while the queue is full');
  let all = '';
  for await (const c of it) { all += String(c); await new Promise((r) => setImmediate(r)); }
  assert.is(all, '0123456789'.repeat(4));
});

test('the stream error reaches the reader after the chunks before it', async () => {
  const s = new PassThrough();
  const it = streamChunks(s);
  s.write('a');
  await new Promise((r) => setImmediate(r));
  s.destroy(new Error('reset by peer'));
  assert.is(String((await it.next()).value), 'a');
  try { await it.next(); assert.unreachable('should throw'); } catch (err) { assert.is((err as Error).message, 'reset by peer'); }
});

test('a close without an end is an error, not a short reply', async () => {
  const s = new PassThrough();
  const it = streamChunks(s);
  const pending = it.next();
  s.destroy();
  try { await pending; assert.unreachable('should throw'); } catch (err) { assert.is((err as { code?: string }).code, 'ERR_STREAM_PREMATURE_CLOSE'); }
});

test('a reader that stops early destroys the stream', async () => {
  const s = Readable.from(['a', 'b', 'c'].map((x) => Buffer.from(x)), { objectMode: false });
  for await (const c of streamChunks(s)) { assert.is(String(c), 'a'); break; }
  assert.ok(s.destroyed);
});

/** A sink that records what it hears, as the agent's provider readers do. */
const recorder = () => {
  const heard: string[] = [];
  let settle: (v: string) => void;
  const settled = new Promise<string>((r) => { settle = r; });
  const sink: ChunkSink = {
    data: (c) => { heard.push(Buffer.from(c).toString()); },
    end: () => settle('end'),
    error: (err) => settle(`error: ${(err as Error).message}`),
  };
  return { heard, settled, sink };
};

test('readBody reads a Node stream into a sink: chunks in order, then end; cancel destroys the stream', async () => {
  const s = new PassThrough();
  const r = recorder();
  readBody(s, r.sink);
  s.write('a'); s.end('b');
  assert.is(await r.settled, 'end');
  assert.equal(r.heard, ['a', 'b']);
  const t = new PassThrough();
  const quiet = recorder();
  readBody(t, quiet.sink).cancel();
  await new Promise((res) => setImmediate(res));
  assert.ok(t.destroyed);
  t.on('error', () => {});
  assert.equal(quiet.heard, [], 'nothing is heard after cancel');
});

test('readBody reads a web stream too: pause holds it back, resume goes on, an error ends it', async () => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start(c) { controller = c; } });
  const r = recorder();
  const reader = readBody(body, r.sink);
  const enc = new TextEncoder();
  controller.enqueue(enc.encode('a'));
  await new Promise((res) => setTimeout(res, 5));
  reader.pause();
  controller.enqueue(enc.encode('b'));
  await new Promise((res) => setTimeout(res, 5));
  // The pump may hold the read it had already asked for; nothing after it is read while paused.
  const whilePaused = r.heard.length;
  controller.enqueue(enc.encode('c'));
  await new Promise((res) => setTimeout(res, 5));
  assert.ok(r.heard.length <= whilePaused, 'no new chunks while paused');
  reader.resume();
  await new Promise((res) => setTimeout(res, 5));
  assert.equal(r.heard, ['a', 'b', 'c']);
  controller.error(new Error('reset by peer'));
  assert.is(await r.settled, 'error: reset by peer');
});

test.run();
