import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { knowledge } from '../../src/knowledge/service.js';
import { startChatWorld } from '../chat/helpers.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addProviderConnection, ingestionIdle, startFlakyEmbeddings, type FlakyEmbeddings } from './helpers.js';

let server: TestServer;
let owner: TestSession;
let flaky: FlakyEmbeddings;

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  flaky = await startFlakyEmbeddings();
  await addProviderConnection(server.app, owner.workspaceId, flaky.baseUrl, flaky.apiKey);
});
test.after(async () => {
  await server.stop();
  await flaky.close();
});

const api = (method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: owner.headers });
const source = async (id: string) => (await api('GET', '/api/v1/knowledge')).body.items.find((s: any) => s.id === id);

test('with the embedding provider failing, a source is indexed for lexical search and says it has no vectors', async () => {
  flaky.failing = true;
  const r = await api('POST', '/api/v1/knowledge', { kind: 'text', name: 'Returns', text: '# Returns\n\nUnopened seed packets can be returned within thirty days for a full refund.' });
  assert.is(r.status, 201);
  await ingestionIdle(server.app, r.body.id);
  const s = await source(r.body.id);
  assert.is(s.status, 'ready');
  assert.ok(s.chunkCount > 0);
  assert.match(s.error, /no vectors.*reindex/);
  assert.match(s.error, /embedding service is down/);
  assert.is(await knowledge(server.app).lexical.count({ workspaceId: owner.workspaceId, sourceId: s.id }), s.chunkCount);
  assert.ok(flaky.requests > 0, 'the provider was asked');

  const found = await api('POST', '/api/v1/knowledge/search', { query: 'return seed packets refund', sourceIds: [s.id] });
  assert.is(found.status, 200, JSON.stringify(found.body));
  assert.is(found.body.mode, 'lexical');
  assert.match(found.body.warning, /lexical results only/);
  assert.ok(found.body.results[0].excerpt.includes('thirty days'));
  assert.is(found.body.relevant, true);
});

test('a reindex once the provider is back adds the vectors and clears the error', async () => {
  flaky.failing = true;
  const r = await api('POST', '/api/v1/knowledge', { kind: 'text', name: 'Gift cards', text: '# Gift cards\n\nGift cards never expire.' });
  await ingestionIdle(server.app, r.body.id);
  const vectors = () => server.app.vectors.count('knowledge_64', { workspaceId: owner.workspaceId, sourceId: r.body.id }).catch(() => 0);
  assert.is(await vectors(), 0);
  flaky.failing = false;
  assert.is((await api('POST', `/api/v1/knowledge/${r.body.id}/reindex`)).status, 202);
  await ingestionIdle(server.app, r.body.id);
  const s = await source(r.body.id);
  assert.is(s.error, null);
  assert.is(await vectors(), s.chunkCount);
  const found = await api('POST', '/api/v1/knowledge/search', { query: 'gift cards expire', sourceIds: [s.id] });
  assert.is(found.body.mode, 'hybrid');
  assert.is(found.body.warning, undefined);
});

test('a bot with knowledge still replies, from lexical excerpts and the search tool, while embeddings fail', async () => {
  const failing = await startFlakyEmbeddings();
  // Kind A (openai_compatible) makes no embeddings: the failing connection is the workspace's embedder.
  const w = await startChatWorld({ kind: 'openai_compatible' });
  try {
    await addProviderConnection(w.server.app, w.workspaceId, failing.baseUrl, failing.apiKey);
    const src = await w.server.request('POST', '/api/v1/knowledge', {
      body: { kind: 'text', name: 'Shipping', text: '# Shipping\n\nExpress delivery to Norway takes 3 days.' }, headers: w.owner.headers,
    });
    await ingestionIdle(w.server.app);
    const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
    const config = { ...bot.published.config, knowledge: { ...bot.published.config.knowledge, sourceIds: [src.body.id], mode: 'both' } };
    await w.setBot({ 'published.config': config, draft: config });

    const v = await w.visitor();
    w.fake.script([
      { toolCalls: [{ id: 'call_1', name: 'search_knowledge', arguments: { query: 'express delivery Norway' } }] },
      { text: 'Express delivery to Norway takes 3 days.' },
    ]);
    v.say('How long does express delivery to Norway take?');
    const { message } = await v.reply();
    assert.is(message.text, 'Express delivery to Norway takes 3 days.');
    assert.equal([...new Set(message.citations?.map((c: any) => c.title))], ['Shipping']);
    const body = w.fake.lastBody('chat/completions');
    assert.ok(JSON.stringify(body.messages[0]).includes('Express delivery to Norway takes 3 days'), 'lexical excerpts reached the prompt');
    const toolMessage = body.messages.find((m: any) => m.role === 'tool');
    assert.ok(String(toolMessage.content).includes('Express delivery to Norway'), String(toolMessage.content));
    assert.ok(failing.requests > 0, 'the failing provider was tried');
    await v.close();
  } finally {
    await w.close();
    await failing.close();
  }
});

test.run();
