import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createToken, setupOwner, type TestSession, type TestToken } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addProviderConnection, ingestionIdle, startFlakyEmbeddings, type FlakyEmbeddings } from './helpers.js';

// Issue 40, item 5: ~4,000 knowledge/search calls with a bots:read token became 4,467 embedding calls (1,000 here: the
// point is one call, not the count).
let server: TestServer;
let owner: TestSession;
let reader: TestToken;
let embeddings: FlakyEmbeddings;

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  embeddings = await startFlakyEmbeddings();
  embeddings.failing = false;
  await addProviderConnection(server.app, owner.workspaceId, embeddings.baseUrl, embeddings.apiKey);
  const r = await server.request('POST', '/api/v1/knowledge', { body: { kind: 'text', name: 'Returns', text: '# Returns\n\nUnopened seed packets can be returned within thirty days for a full refund.' }, headers: owner.headers });
  await ingestionIdle(server.app, r.body.id);
  reader = await createToken(server, owner, ['bots:read']);
});
test.after(async () => {
  await server.stop();
  await embeddings.close();
});

const search = (query: string) => server.request('POST', '/api/v1/knowledge/search', { body: { query }, headers: reader.headers });

test('1,000 identical searches, 200 at a time, cost the embedding provider one call', async () => {
  const before = embeddings.requests;
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(Array.from({ length: 200 }, () => search('can I return seed packets?')));
    for (const r of answers) {
      assert.is(r.status, 200, JSON.stringify(r.body));
      assert.is(r.body.mode, 'hybrid');
    }
    if (round === 0) assert.ok(answers[0].body.results[0].excerpt.includes('thirty days'));
  }
  assert.is(embeddings.requests - before, 1);
});

test('another question is embedded once too, and a failed embedding is not kept', async () => {
  const before = embeddings.requests;
  embeddings.failing = true;
  const failed = await search('gift cards');
  assert.is(failed.body.mode, 'lexical', 'the provider is down: lexical results only');
  const afterFailure = embeddings.requests;
  embeddings.failing = false;
  for (let i = 0; i < 5; i++) assert.is((await search('gift cards')).body.mode, 'hybrid');
  assert.ok(afterFailure > before);
  assert.is(embeddings.requests - afterFailure, 1, 'asked again once the provider is back, then kept');
});

test.run();
