import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupOwner } from '../helpers/auth.js';
import { startTestServer } from '../helpers/server.js';
import { startFakeSite } from './fake-site.js';
import { ingestionIdle } from './helpers.js';

test('a crawl stopped by a server shutdown resumes where it was after the restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-knowledge-restart-'));
  const site = await startFakeSite();
  try {
    const first = await startTestServer({ dataDir });
    const owner = await setupOwner(first);
    site.hold();
    const created = await first.request('POST', '/api/v1/knowledge', { headers: owner.headers, body: { kind: 'crawl', url: `${site.url}/`, settings: { maxDepth: 1 } } });
    assert.is(created.status, 201);
    await site.waitFor('/');
    site.release(); // the start page is answered ...
    site.hold(); // ... and the next pages wait, so the server stops in the middle of the job
    await site.waitFor('/about.html');
    const mid = (await first.request('GET', '/api/v1/knowledge', { headers: owner.headers })).body.items[0];
    assert.equal(mid.progress, { done: 1, total: 4 });
    assert.is(mid.status, 'indexing');
    await first.stop({ keepData: true });
    site.release();

    const second = await startTestServer({ dataDir });
    await ingestionIdle(second.app);
    const after = (await second.request('GET', '/api/v1/knowledge', { headers: owner.headers })).body.items[0];
    assert.is(after.status, 'ready');
    assert.is(after.documentCount, 4);
    assert.equal(after.progress, { done: 4, total: 4 });
    assert.is(site.requests.filter((p) => p === '/').length, 1, 'the page done before the stop is not fetched again');
    assert.is(site.requests.filter((p) => p === '/about.html').length, 2, 'the page cut off by the stop is fetched again');
    const docs = await second.request('GET', `/api/v1/knowledge/${after.id}/documents`, { headers: owner.headers });
    assert.is(docs.body.items.length, 4);
    await second.stop();
  } finally {
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
