import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRobots } from '../../src/knowledge/web.js';
import { createGuardedClient } from '../../src/security/guarded-client.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeSite, type FakeSite } from './fake-site.js';
import { ingestionIdle } from './helpers.js';

let server: TestServer;
let owner: TestSession;
let site: FakeSite;

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  site = await startFakeSite();
});
test.after(async () => {
  await server.stop();
  await site.close();
});

const api = (method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: owner.headers });

test('a crawl stores a redirected page under its final URL, resolves its links there, and skips redirects off the site', async () => {
  const r = await api('POST', '/api/v1/knowledge', { kind: 'crawl', url: `${site.url}/hub`, settings: { maxDepth: 1 } });
  assert.is(r.status, 201);
  await ingestionIdle(server.app, r.body.id);
  const docs = (await api('GET', `/api/v1/knowledge/${r.body.id}/documents`)).body.items.map((d: any) => d.url).sort();
  // compost.html is relative to /guides/hub.html (the final URL), not to /hub; / and /about.html are its navigation.
  assert.equal(docs, ['/', '/about.html', '/guides/compost.html', '/guides/hub.html'].map((p) => site.url + p));
  assert.ok(site.requests.includes('/go'), 'the same-site /go link was followed');
  assert.not.ok(site.requests.includes('/compost.html'), 'links were not resolved against /hub');
  const s = (await api('GET', '/api/v1/knowledge')).body.items.find((x: any) => x.id === r.body.id);
  assert.is(s.status, 'ready');
  assert.match(s.error, /redirected off the site to localhost:\d+; not indexed/);
});

test('robots.txt Crawl-delay is read in ms', async () => {
  const robots = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('User-agent: *\nCrawl-delay: 2.5\nDisallow: /admin/\n'); });
  await new Promise<void>((r) => robots.listen(0, '127.0.0.1', r));
  const client = createGuardedClient({ allowPrivateNetwork: true });
  try {
    const origin = `http://127.0.0.1:${(robots.address() as AddressInfo).port}`;
    const rules = await loadRobots(client, origin);
    assert.is(rules.crawlDelayMs, 2500);
    assert.not.ok(rules.isAllowed(`${origin}/admin/x`));
    const none = await loadRobots(client, site.url);
    assert.is(none.crawlDelayMs, 0);
  } finally {
    await client.close();
    await new Promise<void>((r) => robots.close(() => r()));
  }
});

test.run();
