import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { knowledge } from '../../src/knowledge/service.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeSite, type FakeSite } from './fake-site.js';
import { addProviderConnection, ingestionIdle, startFlakyEmbeddings, type FlakyEmbeddings } from './helpers.js';

// Issue 24's bad input: empty and huge queries, a search while a source is indexing, and an embedding provider
// that goes down in the middle of a reindex. Clear errors or lexical results; nothing indexed is lost.

let server: TestServer;
let owner: TestSession;
let flaky: FlakyEmbeddings;
let site: FakeSite;
let crawlId: string;

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  site = await startFakeSite();
  flaky = await startFlakyEmbeddings();
  flaky.failing = false;
  await addProviderConnection(server.app, owner.workspaceId, flaky.baseUrl, flaky.apiKey);
  const r = await api('POST', '/api/v1/knowledge', { kind: 'crawl', url: `${site.url}/`, settings: { maxDepth: 2 } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  crawlId = r.body.id;
  await ingestionIdle(server.app, crawlId);
});
test.after(async () => { await server.stop(); await flaky.close(); await site.close(); });

const api = (method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: owner.headers });
const source = async () => (await api('GET', '/api/v1/knowledge')).body.items.find((s: any) => s.id === crawlId);
const vectors = () => server.app.vectors.count('knowledge_64', { workspaceId: owner.workspaceId, sourceId: crawlId });
const lexicalEntries = () => knowledge(server.app).lexical.count({ workspaceId: owner.workspaceId, sourceId: crawlId });
const search = async (query: string) => {
  const r = await api('POST', '/api/v1/knowledge/search', { query });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { mode: string; relevant: boolean; warning?: string; results: Array<{ title: string; excerpt: string }> };
};

test('an empty, blank or over-long query is refused with the field and its limit, and a 2,000-character one is searched', async () => {
  for (const query of ['', '   ']) {
    const r = await api('POST', '/api/v1/knowledge/search', { query });
    assert.is(r.status, 422, JSON.stringify(r.body));
    assert.match(r.body.error.message, /query/);
  }
  const long = await api('POST', '/api/v1/knowledge/search', { query: 'water '.repeat(400) });
  assert.is(long.status, 422, JSON.stringify(long.body));
  assert.match(long.body.error.message, /query/);
  assert.match(long.body.error.message, /2000/);
  const atLimit = await api('POST', '/api/v1/knowledge/search', { query: `${'tomatoes sunlight '.repeat(111)}ab`.slice(0, 2000) });
  assert.is(atLimit.status, 200, JSON.stringify(atLimit.body));
  assert.ok(atLimit.body.results.length > 0);
});

test('searches during a reindex keep finding the pages being indexed again', async () => {
  const before = await source();
  flaky.delayMs = 150;
  try {
    assert.is((await api('POST', `/api/v1/knowledge/${crawlId}/reindex`)).status, 202);
    let during = 0;
    while ((await source()).status !== 'ready') {
      const found = await search('How many hours of direct sunlight do tomatoes need?');
      if ((await source()).status !== 'ready') during++;
      assert.ok(found.results.some((r) => r.excerpt.includes('eight hours of direct sunlight')), JSON.stringify(found.results.map((r) => r.title)));
    }
    assert.ok(during > 0, 'at least one search ran while the source was indexing');
  } finally { flaky.delayMs = 0; }
  await ingestionIdle(server.app, crawlId);
  assert.is((await source()).chunkCount, before.chunkCount);
});

test('an embedding provider that goes down mid-reindex leaves every page searchable by its words, and a later reindex restores the vectors', async () => {
  const before = await source();
  assert.ok(before.documentCount >= 3, `pages: ${before.documentCount}`);
  assert.is(await vectors(), before.chunkCount);
  flaky.okLeft = 1;
  assert.is((await api('POST', `/api/v1/knowledge/${crawlId}/reindex`)).status, 202);
  await ingestionIdle(server.app, crawlId);
  const after = await source();
  assert.is(after.status, 'ready');
  assert.is(after.chunkCount, before.chunkCount, 'no passage lost');
  assert.is(await lexicalEntries(), before.chunkCount, 'every passage still in the lexical index');
  assert.ok(await vectors() < before.chunkCount, 'the pages after the failure have no vectors');
  assert.match(after.error, /document\(s\) have no vectors \(lexical search only; reindex to add them\)/);

  // The provider is still down: the search says so and answers by words.
  const down = await search('How many hours of direct sunlight do tomatoes need?');
  assert.is(down.mode, 'lexical');
  assert.match(down.warning!, /lexical results only/);
  assert.ok(down.results.some((r) => r.excerpt.includes('eight hours of direct sunlight')));
  assert.ok(down.relevant);

  flaky.okLeft = undefined;
  flaky.failing = false;
  assert.is((await api('POST', `/api/v1/knowledge/${crawlId}/reindex`)).status, 202);
  await ingestionIdle(server.app, crawlId);
  const healed = await source();
  assert.is(healed.error, null);
  assert.is(await vectors(), healed.chunkCount);
  assert.is((await search('compost smell')).mode, 'hybrid');
});

test.run();
