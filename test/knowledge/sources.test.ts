import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { knowledge } from '../../src/knowledge/service.js';
import type { FakeServer } from '../fakes/script.js';
import type { TestSession } from '../helpers/auth.js';
import type { TestServer } from '../helpers/server.js';
import type { FakeSite } from './fake-site.js';
import { ingestionIdle, makePdf, startKnowledgeWorld, type KnowledgeWorld } from './helpers.js';

let server: TestServer;
let owner: TestSession;
let site: FakeSite;
let openai: FakeServer;

let world: KnowledgeWorld;

test.before(async () => {
  world = await startKnowledgeWorld();
  ({ server, owner, site, openai } = world);
});
test.after(() => world.close());

const api = (method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: owner.headers });
async function addSource(body: unknown) {
  const r = await api('POST', '/api/v1/knowledge', body);
  assert.is(r.status, 201, JSON.stringify(r.body));
  await ingestionIdle(server.app, r.body.id);
  return (await api('GET', '/api/v1/knowledge')).body.items.find((s: any) => s.id === r.body.id);
}
async function upload(bytes: Buffer, contentType: string, filename: string) {
  return server.fetch(`/api/v1/knowledge/files?filename=${encodeURIComponent(filename)}`, { method: 'POST', headers: { ...owner.headers, 'content-type': contentType }, body: new Uint8Array(bytes) })
    .then(async (res) => ({ status: res.status, body: await res.json() as any }));
}
const urls = async (id: string) => (await api('GET', `/api/v1/knowledge/${id}/documents`)).body.items.map((d: any) => d.url.replace(site.url, '')).sort();

test('a text source is indexed and found by search with its excerpt', async () => {
  const s = await addSource({ kind: 'text', name: 'Gift cards', text: '# Gift cards\n\nGift cards never expire and can be used online or in the shop.' });
  assert.is(s.status, 'ready');
  assert.is(s.documentCount, 1);
  const r = await api('POST', '/api/v1/knowledge/search', { query: 'do gift cards expire?', sourceIds: [s.id] });
  assert.is(r.status, 200);
  assert.is(r.body.mode, 'hybrid');
  assert.ok(r.body.results[0].excerpt.includes('never expire'));
  assert.is(r.body.results[0].sourceId, s.id);
  assert.ok(r.body.results[0].score > 0);
});

test('a page source keeps the main content and drops navigation and footer', async () => {
  const s = await addSource({ kind: 'page', url: `${site.url}/guides/tomatoes.html` });
  assert.is(s.status, 'ready');
  assert.equal(await urls(s.id), ['/guides/tomatoes.html']);
  const r = await api('POST', '/api/v1/knowledge/search', { query: 'fertiliser when flowering', sourceIds: [s.id], topK: 3 });
  const top = r.body.results[0];
  assert.is(top.title, 'Growing tomatoes');
  assert.is(top.url, `${site.url}/guides/tomatoes.html`);
  assert.ok(top.excerpt.includes('| Flowering | potassium-rich feed every ten days |'), top.excerpt);
  assert.not.ok(r.body.results.some((x: any) => x.excerpt.includes('All rights reserved')));
});

test('a sitemap index is followed into its sitemaps and robots.txt is honoured', async () => {
  const s = await addSource({ kind: 'sitemap', url: `${site.url}/sitemap_index.xml` });
  assert.is(s.status, 'ready');
  assert.equal(await urls(s.id), ['/guides/compost.html', '/guides/tomatoes.html', '/returns.html', '/shipping.html']);
  assert.equal(s.progress, { done: 4, total: 4 });
});

test('a crawl stays on the site, skips disallowed paths and stops at the depth limit', async () => {
  const s = await addSource({ kind: 'crawl', url: `${site.url}/`, settings: { maxDepth: 1 } });
  assert.is(s.status, 'ready');
  assert.equal(await urls(s.id), ['/', '/about.html', '/guides/compost.html', '/guides/tomatoes.html']);
  assert.not.ok(site.requests.includes('/private/secret.html'));
  const deeper = await addSource({ kind: 'crawl', url: `${site.url}/`, settings: { maxDepth: 2, maxPages: 10 } });
  assert.ok((await urls(deeper.id)).includes('/guides/watering.html'));
  const capped = await addSource({ kind: 'crawl', url: `${site.url}/`, settings: { maxPages: 2 } });
  assert.is(capped.documentCount, 2);
});

test('uploaded PDF, HTML and Markdown files are indexed; other bytes are refused', async () => {
  const pdf = await makePdf([
    { heading: 'Chapter one: soil', lines: ['Loam holds water and nutrients well.', 'Add lime to acidic soil in autumn.'] },
    { heading: 'Chapter two: pests', lines: ['Slugs are kept away by copper tape around raised beds.'] },
    { heading: 'Chapter three: harvest', lines: ['Pick courgettes when they are twenty centimetres long.'] },
  ]);
  const p = await upload(pdf, 'application/pdf', 'handbook.pdf');
  assert.is(p.status, 201, JSON.stringify(p.body));
  const h = await upload(Buffer.from('<html><body><h1>Loyalty</h1><p>Members collect one point per euro spent.</p></body></html>'), 'text/html', 'loyalty.html');
  const m = await upload(Buffer.from('# Workshops\n\n- Pruning: first Saturday of March\n- Grafting: every April\n'), 'text/markdown', 'workshops.md');
  await ingestionIdle(server.app);
  const list = (await api('GET', '/api/v1/knowledge')).body.items;
  for (const id of [p.body.id, h.body.id, m.body.id]) assert.is(list.find((s: any) => s.id === id).status, 'ready');
  const found = await api('POST', '/api/v1/knowledge/search', { query: 'copper tape slugs', sourceIds: [p.body.id] });
  assert.ok(found.body.results[0].excerpt.startsWith('Page 2'), found.body.results[0].excerpt);
  assert.is(found.body.results[0].title, 'Garden handbook');
  const ws = await api('POST', '/api/v1/knowledge/search', { query: 'grafting workshop', sourceIds: [m.body.id] });
  assert.ok(ws.body.results[0].excerpt.includes('- Grafting: every April'));

  const png = await upload(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'application/pdf', 'x.pdf');
  assert.is(png.status, 422);
  const fakePdf = await upload(Buffer.from('hello'), 'application/pdf', 'fake.pdf');
  assert.is(fakePdf.status, 422);
  assert.match(fakePdf.body.error.message, /%PDF-/);
});

test('reindexing twice leaves the same chunks and vectors, and delete removes them all', async () => {
  const s = await addSource({ kind: 'sitemap', url: `${site.url}/sitemap-shop.xml` });
  const svc = knowledge(server.app);
  const counts = async () => ({
    chunks: await server.app.store.collection('knowledge_chunks').count({ workspaceId: owner.workspaceId, sourceId: s.id }),
    lexical: await svc.lexical.count({ workspaceId: owner.workspaceId, sourceId: s.id }),
    vectors: await server.app.vectors.count('knowledge_512', { workspaceId: owner.workspaceId, sourceId: s.id }),
  });
  const first = await counts();
  assert.ok(first.chunks > 0);
  assert.is(openai.lastBody('/embeddings').dimensions, 512, 'the default model is asked for 512-d vectors');
  assert.equal(first, { chunks: first.chunks, lexical: first.chunks, vectors: first.chunks });
  for (let i = 0; i < 2; i++) {
    const r = await api('POST', `/api/v1/knowledge/${s.id}/reindex`);
    assert.is(r.status, 202);
    await ingestionIdle(server.app, s.id);
    assert.equal(await counts(), first);
  }
  assert.is((await api('DELETE', `/api/v1/knowledge/${s.id}`)).status, 204);
  assert.equal(await counts(), { chunks: 0, lexical: 0, vectors: 0 });
  assert.is((await api('GET', `/api/v1/knowledge/${s.id}/documents`)).status, 404);
});

test('changing a page URL re-indexes the source and drops the old page', async () => {
  const s = await addSource({ kind: 'page', url: `${site.url}/returns.html` });
  const r = await api('PATCH', `/api/v1/knowledge/${s.id}`, { url: `${site.url}/shipping.html`, name: 'Shipping page' });
  assert.is(r.status, 200);
  assert.is(r.body.name, 'Shipping page');
  await ingestionIdle(server.app, s.id);
  assert.equal(await urls(s.id), ['/shipping.html']);
  const renamed = await api('PATCH', `/api/v1/knowledge/${s.id}`, { name: 'Delivery' });
  assert.is(renamed.body.status, 'ready');
});

test('an uploaded file is deleted with its source', async () => {
  const m = await upload(Buffer.from('# Temp\n\nTemporary words about marigolds.'), 'text/markdown', 'temp.md');
  await ingestionIdle(server.app, m.body.id);
  const src: any = await server.app.store.collection('knowledge_sources').findById(owner.workspaceId, m.body.id);
  assert.ok(await server.app.store.files.get(owner.workspaceId, src.file.fileId));
  await api('DELETE', `/api/v1/knowledge/${m.body.id}`);
  assert.is(await server.app.store.files.get(owner.workspaceId, src.file.fileId), null);
  const r = await api('POST', '/api/v1/knowledge/search', { query: 'marigolds' });
  assert.not.ok(r.body.results.some((x: any) => x.excerpt.includes('marigolds')));
  assert.is(r.body.relevant, false);
});

test.run();
