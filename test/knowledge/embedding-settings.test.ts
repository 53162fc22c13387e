import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ingestionIdle } from './helpers.js';

let server: TestServer;
let owner: TestSession;
let openai: FakeOpenAI;
let sourceId: string;
const api = async (method: string, path: string, body?: unknown) => server.request(method, path, { headers: owner.headers, body });

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  openai = await startFakeOpenAI();
  const s = await api('POST', '/api/v1/knowledge', { kind: 'text', name: 'Returns', text: '# Returns\n\nSeed packets can be returned within 30 days for a full refund.' });
  sourceId = s.body.id;
  await ingestionIdle(server.app, sourceId);
});
test.after(async () => { await server.stop(); await openai.close(); });

const embeddingRequests = () => openai.requests.filter((r) => r.path.endsWith('/embeddings'));

test('with no connection nothing embeds, and the settings say so', async () => {
  assert.equal((await api('GET', '/api/v1/knowledge/settings')).body, { embedding: null, explicit: false });
  assert.is((await api('POST', '/api/v1/knowledge/search', { query: 'refund seed packets' })).body.mode, 'lexical');
});

test('a server with the built-in model turned off refuses to choose it and says how to turn it on', async () => {
  const r = await api('PUT', '/api/v1/knowledge/settings', { embedding: { connectionId: 'embedded' } });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /turned off on this server \(EMBEDDED_EMBEDDINGS=false\); set EMBEDDED_EMBEDDINGS=true and restart it/);
  assert.equal((await api('GET', '/api/v1/knowledge/settings')).body, { embedding: null, explicit: false });
});

test('an OpenAI-compatible connection embeds with the model chosen for it, after a reindex that reports its sources', async () => {
  const conn = await api('POST', '/api/v1/providers', { kind: 'openai_compatible', name: 'Local', apiKey: openai.apiKey, baseUrl: openai.baseUrl });
  assert.is(conn.status, 201, JSON.stringify(conn.body));
  const noModel = await api('PUT', '/api/v1/knowledge/settings', { embedding: { connectionId: conn.body.id } });
  assert.is(noModel.status, 422);
  assert.match(noModel.body.error.message, /embedding\.model: name the embedding model/);
  assert.equal((await api('GET', '/api/v1/knowledge/settings')).body, { embedding: null, explicit: false }, 'a refused choice changes nothing');

  const before = embeddingRequests().length;
  const saved = await api('PUT', '/api/v1/knowledge/settings', { embedding: { connectionId: conn.body.id, model: 'nomic-embed-text' }, reindex: true });
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body, { embedding: { connectionId: conn.body.id, model: 'nomic-embed-text' }, explicit: true, reindexing: [sourceId] });
  await ingestionIdle(server.app, sourceId);
  const found = await api('POST', '/api/v1/knowledge/search', { query: 'can I get my money back for seeds' });
  assert.is(found.body.mode, 'hybrid');
  assert.is(found.body.results[0].sourceId, sourceId);
  const sent = embeddingRequests().slice(before).map((r) => r.body as { model: string; dimensions?: number });
  assert.ok(sent.length >= 2, 'the document and the query were embedded');
  assert.ok(sent.every((b) => b.model === 'nomic-embed-text' && b.dimensions === undefined), JSON.stringify(sent));
});

test('choosing no embeddings makes search lexical even with an embedding-capable connection', async () => {
  const conn = await api('POST', '/api/v1/providers', { kind: 'openai', name: 'OpenAI', apiKey: openai.apiKey, baseUrl: openai.baseUrl });
  assert.is(conn.status, 201);
  assert.is((await api('PUT', '/api/v1/knowledge/settings', { embedding: null })).status, 200);
  assert.is((await api('POST', '/api/v1/knowledge/search', { query: 'refund seed packets' })).body.mode, 'lexical');
  const missing = await api('PUT', '/api/v1/knowledge/settings', { embedding: { connectionId: 'prov_nope' } });
  assert.is(missing.status, 404);
  assert.is(missing.body.error.code, 'not_found');
});

test.run();
