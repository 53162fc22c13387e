import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { longPage } from '../workers/hostile-html.js';
import { ingestionIdle, startKnowledgeWorld, type KnowledgeWorld } from './helpers.js';

// Its own file: the peak resident size of a process only grows, so nothing else may run before it here.
let world: KnowledgeWorld;

test.before(async () => { world = await startKnowledgeWorld({ UPLOAD_LIMIT_BYTES: String(32 * 1024 * 1024) }); });
test.after(() => world.close());

const api = (method: string, path: string, body?: unknown) => world.server.request(method, path, { body, headers: world.owner.headers });
const MB = 1024 * 1024;
/** Peak resident memory of this process (the server, its worker threads and the test) so far, in MB. */
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

async function uploadAndSettle(html: string, filename: string) {
  const res = await world.server.fetch(`/api/v1/knowledge/files?filename=${filename}`, {
    method: 'POST', headers: { ...world.owner.headers, 'content-type': 'text/html' }, body: html,
  });
  const { id } = await res.json() as { id: string };
  assert.is(res.status, 201);
  await ingestionIdle(world.server.app, id);
  const source = (await api('GET', '/api/v1/knowledge')).body.items.find((s: { id: string }) => s.id === id);
  const documents = (await api('GET', `/api/v1/knowledge/${id}/documents`)).body.items;
  return { id, source, documents };
}

test('a 29 MB HTML upload fails with the reason after one scan, and memory stays bounded', async () => {
  const html = longPage(29 * MB);
  const rssBefore = process.memoryUsage().rss / MB;
  const started = performance.now();
  const { source, documents } = await uploadAndSettle(html, 'export.html');
  const ms = performance.now() - started;
  const peak = peakRssMb();
  console.log(`  29 MB HTML: failed in ${ms.toFixed(0)} ms; RSS ${rssBefore.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${(peak - rssBefore).toFixed(0)} MB)`);
  assert.is(source.status, 'failed');
  assert.match(source.error, /the HTML is 29\.0 MB and more than 2\.0 MB is left after removing scripts, styles and images \(at most 2\.0 MB is read\); split it into smaller files, or upload it as Markdown or plain text/);
  assert.equal(documents, []);
  // It held 1.5-2 GB before the prescan; the body's own copies (test, server, store, worker) are most of this.
  assert.ok(peak - rssBefore < 600, `peak grew by ${peak - rssBefore} MB`);
});

test('the largest HTML the limits let through is indexed within the worker heap limit', async () => {
  const rssBefore = process.memoryUsage().rss / MB;
  const started = performance.now();
  const { id, source, documents } = await uploadAndSettle(longPage(1.9 * MB), 'long.html');
  const ms = performance.now() - started;
  const peak = peakRssMb();
  console.log(`  1.9 MB HTML: indexed in ${ms.toFixed(0)} ms; RSS ${rssBefore.toFixed(0)} MB before, peak so far ${peak.toFixed(0)} MB`);
  assert.is(source.status, 'ready', source.error);
  assert.is(documents.length, 1);
  const r = await api('POST', '/api/v1/knowledge/search', { query: 'bed 7000 watered', sourceIds: [id], topK: 3 });
  assert.ok(r.body.results.length > 0);
  assert.ok(peak < 1200, `peak ${peak} MB`);
});

test.run();
