import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHttpServer } from '../../src/http/server.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/kernel/log.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
test.before(async () => { s = await startTestServer(); });
test.after(async () => { await s.stop(); });

test('an unknown route answers 404 not_found in the error shape', async () => {
  const r = await s.request('GET', '/api/v1/does-not-exist');
  assert.is(r.status, 404);
  assert.is(r.body.error.code, 'not_found');
  assert.type(r.body.error.message, 'string');
});

test('a wrong method on a known path answers 405 with Allow', async () => {
  const r = await s.request('PUT', '/api/v1/setup');
  assert.is(r.status, 405);
  assert.is(r.body.error.code, 'bad_request');
  assert.ok(r.headers.get('allow')?.includes('GET'));
});

test('malformed JSON is a 400 bad_request naming the body', async () => {
  const r = await s.request('POST', '/api/v1/auth/login', { body: '{not json', headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 400);
  assert.is(r.body.error.code, 'bad_request');
});

test('a body over the limit is refused with 413', async () => {
  const r = await s.request('POST', '/api/v1/auth/login', { body: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 413);
});

test('every response carries a request id', async () => {
  const r = await s.request('GET', '/healthz');
  assert.is(r.status, 200);
  assert.ok(r.headers.get('x-request-id'));
});

test('a client that goes away mid-request does not crash the server', async () => {
  const net = await import('node:net');
  await new Promise<void>((resolve) => {
    const sock = net.connect(s.port, '127.0.0.1', () => {
      sock.write('POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":');
      setTimeout(() => { sock.destroy(); resolve(); }, 50);
    });
  });
  const r = await s.request('GET', '/healthz');
  assert.is(r.status, 200);
});

test('OpenAPI 3.1 describes every one of the 101 spec operations', async () => {
  const r = await s.request('GET', '/api/openapi.json');
  assert.is(r.status, 200);
  assert.is(r.body.openapi, '3.1.0');
  // The spec's endpoint tables, copied into the repository (test/fixtures/spec/refresh.ts regenerates the copy).
  const fixture = JSON.parse(readFileSync(new URL('../fixtures/spec/service-api-operations.json', import.meta.url), 'utf8')) as { operations: [string, string][] };
  const ops = fixture.operations.map(([method, path]) => [method.toLowerCase(), path] as const);
  assert.is(ops.length, 101);
  for (const [method, path] of ops) assert.ok(r.body.paths[path]?.[method], `${method} ${path} missing`);
  const notBuilt = ops.filter(([method, path]) => r.body.paths[path][method].responses['501']).map(([m, p]) => `${m} ${p}`);
  assert.equal(notBuilt, [], 'every spec operation is implemented');
});

test('a route that throws a bug answers 500 internal without the error or its stack', async () => {
  const router = new Router();
  router.add('GET', '/boom', () => { throw new TypeError('cannot read properties of undefined (reading secretField)'); });
  router.add('GET', '/boom-async', async () => { await Promise.resolve(); throw new Error('db password hunter2 rejected'); });
  const http = createHttpServer({ logger: createLogger('silent'), router, bodyLimitBytes: 1024, trustProxy: 0 });
  const port = await http.listen('127.0.0.1', 0);
  try {
    for (const path of ['/boom', '/boom-async']) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      assert.is(res.status, 500, path);
      const text = await res.text();
      const body = JSON.parse(text);
      assert.equal(Object.keys(body), ['error']);
      assert.is(body.error.code, 'internal');
      assert.type(body.error.message, 'string');
      assert.equal(Object.keys(body.error).sort(), ['code', 'message']);
      for (const leak of ['secretField', 'hunter2', 'TypeError', '    at ', '.ts:']) assert.not.ok(text.includes(leak), `${path} leaks ${leak}`);
    }
    assert.is((await fetch(`http://127.0.0.1:${port}/boom`)).status, 500, 'the server keeps serving');
  } finally {
    await http.close();
  }
});

test('the API reference page is served from local assets', async () => {
  const page = await s.fetch('/api/docs');
  assert.is(page.status, 200);
  const html = await page.text();
  assert.ok(html.includes('/api/docs/assets/swagger-ui-bundle.js'));
  assert.not.ok(/https?:\/\//.test(html.replace(/<meta[^>]*>/g, '')), 'no outside URLs');
  const js = await s.fetch('/api/docs/assets/swagger-ui-bundle.js');
  assert.is(js.status, 200);
  assert.ok((await js.arrayBuffer()).byteLength > 100_000);
});

test.run();
