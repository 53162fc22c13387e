/**
 * The embedded sentence-embedding model (no provider): the default when nothing else embeds, real ingestion and
 * search through POST /api/v1/knowledge/search, switching to and from it with a reindex, and bad queries.
 * A handful of short documents only: the model reads a few passages a second on a busy 2-core machine.
 */
import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { LOCAL_MODEL } from '../../src/providers/local-model.js';
import sharp from 'sharp';
import { poolStats, runTask } from '../../workers/pool.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ingestionIdle } from './helpers.js';

let server: TestServer;
let owner: TestSession;
const ids: Record<string, string> = {};
const api = async (method: string, path: string, body?: unknown) => server.request(method, path, { headers: owner.headers, body });
const search = async (query: unknown) => api('POST', '/api/v1/knowledge/search', { query, topK: 3 });
const PARAPHRASE = 'how long until my package arrives in Toronto';
const titleOf = (r: { sourceId: string }) => Object.entries(ids).find(([, id]) => id === r.sourceId)?.[0];

const DOCS = {
  Returns: '# Returns\n\nSeed packets can be returned within 30 days of delivery for a full refund. Opened packets are refunded only when the seeds did not germinate.',
  Shipping: '# Shipping\n\nOrders leave our warehouse in Oregon within two business days. Parcels to Canada take about a week and customs fees are paid by the recipient.',
  Watering: '# Watering tomatoes\n\nGive tomato plants a deep soak twice a week at the base of the stem, early in the morning, so the leaves stay dry and do not catch blight.',
};

test.before(async () => {
  server = await startTestServer({ env: { EMBEDDED_EMBEDDINGS: 'true' } });
  owner = await setupOwner(server);
  for (const [name, text] of Object.entries(DOCS)) ids[name] = (await api('POST', '/api/v1/knowledge', { kind: 'text', name, text })).body.id;
  await ingestionIdle(server.app);
});
test.after(async () => { await server.stop(); });

test('with no embedding connection the built-in model is the default, and the settings say so', async () => {
  assert.equal((await api('GET', '/api/v1/knowledge/settings')).body, { embedding: { connectionId: 'embedded', model: LOCAL_MODEL }, explicit: false });
});

test('a question that shares no word with the page finds it by meaning, through the search route', async () => {
  // "package", "arrives", "Toronto": none of them is on the Shipping page ("Parcels to Canada take about a week").
  const r = await search(PARAPHRASE);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.mode, 'hybrid');
  assert.is(titleOf(r.body.results[0]), 'Shipping', JSON.stringify(r.body.results.map(titleOf)));
  assert.ok(r.body.results.every((x: { score: number }) => x.score >= 0 && x.score <= 1), 'scores are relevance estimates from 0 to 1');
});

test('a question the pages answer is relevant; one they do not answer is a gap', async () => {
  const answered = await search('how often should I water my tomato plants');
  assert.is(titleOf(answered.body.results[0]), 'Watering');
  assert.is(answered.body.relevant, true);
  const gap = await search('What is the capital of Mongolia?');
  assert.is(gap.body.mode, 'hybrid');
  assert.is(gap.body.relevant, false, JSON.stringify(gap.body.results.map((x: { score: number }) => x.score)));
});

test('the model runs on the worker pool (documents on the ingest lane, queries on the search lane), never on the main thread', async () => {
  const stats = poolStats();
  assert.ok(stats.search.completed >= 1, 'queries were embedded on the search lane');
  assert.is(stats.search.threads, 1);
  const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@energetic-ai'));
  assert.equal(loaded, [], 'the main thread never loads the model');
});

test('an image and a search answer at once while the model embeds a long document', async () => {
  const sections = Array.from({ length: 48 }, (_, i) => `## Variety ${i}\n\nVariety ${i} is sown in spring, likes full sun and is harvested after ${60 + i} days; keep the soil moist.`);
  const long = await api('POST', '/api/v1/knowledge', { kind: 'text', name: 'Varieties', text: `# Varieties\n\n${sections.join('\n\n')}` });
  assert.is(long.status, 201);
  await until(() => poolStats().ingest.running > 0, { timeout: 30_000, interval: 5, message: 'the ingest thread embedding the long document' });
  const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3366cc' } }).png().toBuffer();
  await runTask('resize-image', { data: new Uint8Array(png), maxEdgePx: 320 }); // the interactive thread loads sharp once
  let t = performance.now();
  const resized = await runTask('resize-image', { data: new Uint8Array(png), maxEdgePx: 320 });
  const imageMs = performance.now() - t;
  t = performance.now();
  const found = await search(PARAPHRASE);
  const searchMs = performance.now() - t;
  const busy = poolStats().ingest.running;
  console.log(`  while the model embeds (${busy} ingest task running): image ${imageMs.toFixed(0)} ms, search ${searchMs.toFixed(0)} ms`);
  assert.is(resized.width, 320);
  assert.is(titleOf(found.body.results[0]), 'Shipping');
  assert.is(busy, 1, 'the document was still being embedded');
  assert.ok(imageMs < 5000 && searchMs < 5000, `image ${imageMs} ms, search ${searchMs} ms`);
  await ingestionIdle(server.app);
  assert.is((await api('DELETE', `/api/v1/knowledge/${long.body.id}`)).status, 204);
});

test('switching to words only and back to the built-in model reindexes every source and reports progress', async () => {
  assert.is((await api('PUT', '/api/v1/knowledge/settings', { embedding: null })).status, 200);
  const words = await search(PARAPHRASE);
  assert.is(words.body.mode, 'lexical');
  assert.equal(words.body.results, [], 'no word of the question is on any page');
  const wrong = await api('PUT', '/api/v1/knowledge/settings', { embedding: { connectionId: 'embedded', model: 'nomic-embed-text' } });
  assert.is(wrong.status, 422);
  assert.match(wrong.body.error.message, /the embedded model is universal-sentence-encoder-lite; leave model out/);
  const saved = await api('PUT', '/api/v1/knowledge/settings', { embedding: { connectionId: 'embedded' }, reindex: true });
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.embedding, { connectionId: 'embedded', model: LOCAL_MODEL });
  assert.is(saved.body.explicit, true);
  assert.equal([...saved.body.reindexing].sort(), Object.values(ids).sort());
  const during = (await api('GET', '/api/v1/knowledge')).body.items as Array<{ status: string; progress: { done: number; total: number } }>;
  assert.ok(during.every((s) => ['queued', 'indexing', 'ready'].includes(s.status) && s.progress.total >= 0), JSON.stringify(during));
  await ingestionIdle(server.app);
  const after = (await api('GET', '/api/v1/knowledge')).body.items as Array<{ status: string; error: string | null }>;
  assert.ok(after.every((s) => s.status === 'ready' && !s.error), JSON.stringify(after));
  const r = await search(PARAPHRASE);
  assert.is(r.body.mode, 'hybrid');
  assert.is(titleOf(r.body.results[0]), 'Shipping');
});

test('empty and oversized queries are refused with a clear error; any script and long queries are answered', async () => {
  for (const bad of ['', '   ', 'x'.repeat(2001), 42]) {
    const r = await search(bad);
    assert.is(r.status, 422, `${JSON.stringify(bad).slice(0, 20)}: ${r.status}`);
    assert.type(r.body.error.message, 'string');
    assert.ok(r.body.error.code);
  }
  for (const q of ['退货政策是什么？', 'ما هي سياسة الإرجاع؟', 'Возврат семян 🌱', '🌱🌱🌱', 'refund '.repeat(285).trim()]) {
    const r = await search(q);
    assert.is(r.status, 200, `${q.slice(0, 20)}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.mode, 'hybrid');
    assert.type(r.body.relevant, 'boolean');
  }
});

test.run();
