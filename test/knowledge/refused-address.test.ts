import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ingestionIdle, startKnowledgeWorld, type KnowledgeWorld } from './helpers.js';

/** Sources whose address the outbound guard refuses (the fake site is on loopback, and private addresses are not allowed). */
let w: KnowledgeWorld;
test.before(async () => { w = await startKnowledgeWorld({ ALLOW_PRIVATE_NETWORK: 'false' }); });
test.after(() => w.close());

const api = (method: string, path: string, body?: unknown) => w.server.request(method, path, { body, headers: w.owner.headers });

async function sourceAfterIngestion(body: Record<string, unknown>) {
  const r = await api('POST', '/api/v1/knowledge', body);
  assert.is(r.status, 201, JSON.stringify(r.body));
  await ingestionIdle(w.server.app, r.body.id);
  return (await api('GET', '/api/v1/knowledge')).body.items.find((x: { id: string }) => x.id === r.body.id);
}

for (const [kind, path] of [['page', '/guides/tomatoes.html'], ['crawl', '/'], ['sitemap', '/sitemap_index.xml']] as const) {
  test(`a ${kind} source on a refused address ends failed, and its error says why`, async () => {
    const url = `${w.site.url}${path}`;
    const s = await sourceAfterIngestion({ kind, url });
    assert.is(s.status, 'failed', JSON.stringify(s));
    assert.is(s.documentCount, 0);
    assert.match(s.error, /^1 (page|sitemap)\(s\) failed; first: address 127\.0\.0\.1 is not on the public internet/, s.error);
    assert.match(s.error, /set ALLOW_PRIVATE_NETWORK=true/, `the error says how to allow it: ${s.error}`);
  });
}

test.run();
