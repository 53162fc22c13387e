import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closePool, configurePool, poolStats, runTask, TaskMemoryError, TaskTimeoutError, type PoolOptions } from '../../workers/pool.js';
import { longPage, nestedDivs } from './hostile-html.js';
import { until } from '../helpers/until.js';

const bytes = (s: string) => new TextEncoder().encode(s);
// The parser as it was before the prescan: no flattening, Readability at any depth (minutes for 5,000 divs).
const UNBOUNDED = { maxDepth: 1_000_000, readabilityMaxDepth: 1_000_000 };

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try { await promise; } catch (err) { return err as Error; }
  throw new Error('expected the promise to reject, but it resolved');
}

async function freshPool(options: PoolOptions): Promise<void> {
  await closePool();
  configurePool(options);
}

test.after(async () => {
  await closePool();
  configurePool({});
});

test('a page of 5,000 nested divs is read in a moment: the tags past 256 levels are dropped before the parser', async () => {
  await freshPool({});
  const started = performance.now();
  const out = await runTask('parse-document', { data: bytes(nestedDivs()), type: 'html' });
  const ms = performance.now() - started;
  console.log(`  nested 5,000 divs (${nestedDivs().length} bytes): parsed in ${ms.toFixed(0)} ms`);
  assert.ok(out.markdown.includes('The nested page says the greenhouse opens at nine.'), out.markdown);
  assert.ok(ms < 5000, `took ${ms} ms`);
});

test('a parse past its time limit is ended with TaskTimeoutError, its thread replaced, and the next parse works', async () => {
  await freshPool({ timeLimitsMs: { 'parse-document': 1000 } });
  const started = performance.now();
  const err = await rejection(runTask('parse-document', { data: bytes(nestedDivs()), type: 'html', htmlLimits: UNBOUNDED }));
  const ms = performance.now() - started;
  assert.instance(err, TaskTimeoutError);
  assert.is((err as TaskTimeoutError).code, 'task_timeout');
  assert.match(err.message, /parse-document ran longer than its 1 s limit/);
  assert.ok(ms < 15_000, `ended after ${ms} ms`);
  assert.is(poolStats().ingest.ended, 1);
  assert.is(poolStats().ingest.running, 0);

  const next = await runTask('parse-document', { data: bytes('<html><body><h1>Hours</h1><p>Open at nine.</p></body></html>'), type: 'html' });
  assert.ok(next.markdown.includes('Open at nine.'));
});

test('a task queued behind an ended one runs on the thread that replaces it', async () => {
  await freshPool({ ingest: { maxThreads: 1 }, timeLimitsMs: { 'parse-document': 1000 } });
  const [ended, queued] = await Promise.allSettled([
    runTask('parse-document', { data: bytes(nestedDivs()), type: 'html', htmlLimits: UNBOUNDED }),
    runTask('parse-document', { data: bytes('# Hours\n\nOpen at nine.\n'), type: 'markdown' }),
  ]);
  assert.is(ended.status === 'rejected' && ended.reason instanceof TaskTimeoutError, true);
  assert.is(queued.status === 'fulfilled' && queued.value.title, 'Hours');
});

test('a parse past its thread heap limit is ended with TaskMemoryError, and the next parse works', async () => {
  await freshPool({ ingest: { maxHeapMb: 48 }, timeLimitsMs: { 'parse-document': 120_000 } });
  const err = await rejection(runTask('parse-document', { data: bytes(longPage(1_500_000)), type: 'html' }));
  assert.instance(err, TaskMemoryError);
  assert.is((err as TaskMemoryError).code, 'task_out_of_memory');
  assert.match(err.message, /needed more than its 48 MB of memory/);
  assert.is(poolStats().ingest.ended, 1);

  const next = await runTask('parse-document', { data: bytes('# Hours\n\nOpen at nine.\n'), type: 'markdown' });
  assert.is(next.title, 'Hours');
});

test('while two parses are stalled in the ingest lane, an image resize answers at once', async () => {
  await freshPool({ ingest: { maxThreads: 2 }, timeLimitsMs: { 'parse-document': 120_000 } });
  const stop = new AbortController();
  const stalled = [1, 2].map(() => rejection(runTask('parse-document', { data: bytes(nestedDivs()), type: 'html', htmlLimits: UNBOUNDED }, { signal: stop.signal })));
  await until(() => poolStats().ingest.running === 2, { timeout: 30_000, interval: 20, message: 'both parses to start' });
  // Let them get deep into Readability, where they used to hold every thread for minutes.
  await new Promise((r) => setTimeout(r, 500));

  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).png().toBuffer();
  // The first resize also starts the lane's thread and loads sharp there; the second is the steady state.
  for (const run of ['first', 'second']) {
    const started = performance.now();
    const out = await runTask('resize-image', { data: png, maxEdgePx: 1568 });
    const ms = performance.now() - started;
    console.log(`  ${run} ${png.length}-byte image resized in ${ms.toFixed(0)} ms while 2 parses were stalled`);
    assert.equal([out.width, out.height], [64, 48]);
    assert.ok(ms < 5000, `the image waited ${ms} ms`);
  }
  assert.is(poolStats().ingest.running, 2, 'the parses were still running');

  stop.abort();
  for (const err of await Promise.all(stalled)) assert.is(err.name, 'AbortError');
});

test.run();
