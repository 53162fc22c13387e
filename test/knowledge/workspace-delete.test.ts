import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { knowledge } from '../../src/knowledge/service.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import { setupOwner } from '../helpers/auth.js';
import { startTestServer } from '../helpers/server.js';
import { ingestionIdle } from './helpers.js';

test('deleting the workspace removes its knowledge from the lexical and vector indexes too', async () => {
  const s = await startTestServer();
  const fake = await startFakeOpenAI();
  try {
    const owner = await setupOwner(s);
    const prov = await s.request('POST', '/api/v1/providers', { body: { kind: 'openai', name: 'Fake', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, headers: owner.headers });
    assert.is(prov.status, 201, JSON.stringify(prov.body));
    const src = await s.request('POST', '/api/v1/knowledge', { body: { kind: 'text', name: 'Returns', text: '# Returns\n\nYou can return any unworn item within 30 days for a full refund.' }, headers: owner.headers });
    assert.is(src.status, 201, JSON.stringify(src.body));
    await ingestionIdle(s.app);
    const found = await s.request('POST', '/api/v1/knowledge/search', { body: { query: 'return refund days' }, headers: owner.headers });
    assert.ok(found.body.results.length > 0, 'searchable before');
    const docs: any[] = await s.app.store.collection('knowledge_documents').find({ workspaceId: owner.workspaceId });
    const vectorCollection = docs[0]?.vectorCollection;
    assert.type(vectorCollection, 'string', 'the connection made vectors');
    assert.ok(await s.app.vectors.count(vectorCollection, { workspaceId: owner.workspaceId }) > 0);

    assert.is((await s.request('DELETE', '/api/v1/workspace', { headers: owner.headers })).status, 204);
    assert.is(await knowledge(s.app).lexical.count({ workspaceId: owner.workspaceId }), 0);
    assert.is(await s.app.vectors.count(vectorCollection, { workspaceId: owner.workspaceId }), 0);
  } finally {
    await s.stop();
    await fake.close();
  }
});

test.run();
