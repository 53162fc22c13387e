import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { readBody, type ChunkSink } from '../../src/security/read-body.js';

/** A sink that records what it hears, as the agent's provider readers do. */
const recorder = () => {
  const heard: string[] = [];
  let settle: (v: string) => void;
  const settled = new Promise<string>((r) => { settle = r; });
  const sink: ChunkSink = {
    data: (c) => { heard.push(Buffer.from(c).toString()); },
    end: () => settle('end'),
    error: (err) => settle(`error: ${(err as { code?: string }).code ?? (err as Error).message}`),
  };
  return { heard, settled, sink };
};

test('a Node stream reaches the sink: chunks in order, then end; cancel destroys the stream', async () => {
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

test('the stream error reaches the sink after the chunks before it', async () => {
  const s = new PassThrough();
  const r = recorder();
  readBody(s, r.sink);
  s.write('a');
  await new Promise((res) => setImmediate(res));
  s.destroy(new Error('reset by peer'));
  assert.is(await r.settled, 'error: reset by peer');
  assert.equal(r.heard, ['a']);
});

test('a close without an end is an error, not a short reply', async () => {
  const s = new PassThrough();
  const r = recorder();
  readBody(s, r.sink);
  s.destroy();
  assert.is(await r.settled, 'error: ERR_STREAM_PREMATURE_CLOSE');
});

test('a web stream is read too: chunks in order, an error ends it, cancel releases it', async () => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start(c) { controller = c; } });
  const r = recorder();
  readBody(body, r.sink);
  const enc = new TextEncoder();
  controller.enqueue(enc.encode('a'));
  controller.enqueue(enc.encode('b'));
  await until(() => r.heard.length >= 2, { message: 'both chunks heard' });
  assert.equal(r.heard, ['a', 'b']);
  controller.error(new Error('reset by peer'));
  assert.is(await r.settled, 'error: reset by peer');
  let cancelled = false;
  const other = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(enc.encode('x')); }, cancel() { cancelled = true; } });
  const quiet = recorder();
  readBody(other, quiet.sink).cancel();
  await until(() => cancelled, { message: 'the web stream cancelled' });
  assert.equal(quiet.heard, [], 'nothing is heard after cancel');
});

test.run();
