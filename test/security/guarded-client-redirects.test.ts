import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OutboundError } from '../../src/security/guarded-client.js';
import { clientPool, outboundFailure, startServer, tableLookup, type LoopbackServer } from './loopback-server.js';

let server: LoopbackServer;
let other: LoopbackServer; // a second origin
const { client, closeAll } = clientPool({ allowPrivateNetwork: true });

const echo = (res: import('node:http').ServerResponse, req: import('node:http').IncomingMessage, body: string) =>
  res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null, type: req.headers['content-type'] ?? null, ua: req.headers['user-agent'] }));

test.before(async () => {
  other = await startServer((req, res, body) => echo(res, req, body));
  server = await startServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const [, kind, arg] = url.pathname.split('/');
    if (kind === 'chain') {
      const n = Number(arg);
      if (n > 0) res.writeHead(302, { location: `/chain/${n - 1}` }).end();
      else res.end('end of chain');
    } else if (kind === 'status') res.writeHead(Number(arg), { location: '/echo' }).end();
    else if (kind === 'to') res.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
    else if (kind === 'echo') echo(res, req, body);
    else res.writeHead(404).end();
  });
});
test.after(async () => {
  await closeAll();
  await Promise.all([server.close(), other.close()]);
});

test('three redirects are followed and reported', async () => {
  const res = await client().request(`${server.origin}/chain/3`);
  assert.is(res.status, 200);
  assert.is(res.body.toString(), 'end of chain');
  assert.is(res.redirects, 3);
  assert.is(res.url, `${server.origin}/chain/0`);
});

test('a fourth redirect is refused with too_many_redirects', async () => {
  const before = server.seen.length;
  const err = await outboundFailure(client().request(`${server.origin}/chain/4`));
  assert.is(err.code, 'too_many_redirects');
  assert.is(server.seen.length - before, 4, 'the fifth URL is never requested');
});

test('maxRedirects 0 refuses the first redirect; manual policy returns it as is', async () => {
  assert.is((await outboundFailure(client().request(`${server.origin}/chain/1`, { maxRedirects: 0 }))).code, 'too_many_redirects');
  const res = await client().request(`${server.origin}/chain/1`, { redirectPolicy: 'manual' });
  assert.is(res.status, 302);
  assert.is(res.headers.location, '/chain/0');
  assert.is(res.redirects, 0);
});

for (const status of [301, 302, 303]) {
  test(`a ${status} turns a POST into a GET without a body`, async () => {
    const res = await client().request(`${server.origin}/status/${status}`, {
      method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' }, redirectPolicy: 'webhook',
    });
    assert.equal(JSON.parse(res.body.toString()), { method: 'GET', body: '', auth: null, type: null, ua: 'ServiceChat/1' });
    assert.is(res.redirects, 1);
  });
}

for (const status of [307, 308]) {
  test(`a ${status} keeps the POST and its body`, async () => {
    const res = await client({ userAgent: 'ServiceChat-Webhooks/1' }).request(`${server.origin}/status/${status}`, {
      method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(JSON.parse(res.body.toString()), { method: 'POST', body: '{"a":1}', auth: null, type: 'application/json', ua: 'ServiceChat-Webhooks/1' });
  });
}

test('credentials stay on the same origin and are dropped when a redirect changes origin', async () => {
  const headers = { Authorization: 'Bearer abc' };
  const same = await client().request(`${server.origin}/status/307`, { headers });
  assert.is(JSON.parse(same.body.toString()).auth, 'Bearer abc');
  const cross = await client().request(`${server.origin}/to?url=${encodeURIComponent(`${other.origin}/x`)}`, { headers });
  assert.is(JSON.parse(cross.body.toString()).auth, null);
  assert.is(cross.url, `${other.origin}/x`);
});

test('a redirect to a non-http scheme is refused', async () => {
  const err = await outboundFailure(client().request(`${server.origin}/to?url=${encodeURIComponent('file:///etc/passwd')}`));
  assert.is(err.code, 'invalid_url');
});

// Here 127.0.0.1 plays "the public internet" (test hook) and 127.0.0.2 plays an internal host.
const internet = (ip: string) => ip === '127.0.0.1';

test('every redirect hop is checked again: public to internal is refused', async () => {
  const internal = await startServer((_req, res) => res.end('internal'), '127.0.0.2');
  try {
    const { lookup, calls } = tableLookup({ 'inside.test': '127.0.0.2' });
    const c = client({ allowPrivateNetwork: false, isPublic: internet, lookup });
    for (const target of [`${internal.origin}/`, `http://inside.test:${internal.port}/`, `http://[::1]:${internal.port}/`]) {
      const err = await outboundFailure(c.request(`${server.origin}/to?url=${encodeURIComponent(target)}`));
      assert.is(err.code, 'blocked_address', target);
    }
    assert.equal(calls, ['inside.test']);
    const res = await c.fetch(`${server.origin}/to?url=${encodeURIComponent(`${internal.origin}/`)}`).catch((e: unknown) => e);
    assert.instance(res, OutboundError);
    assert.is((res as OutboundError).code, 'blocked_address');
    assert.is(internal.seen.length, 0);
  } finally {
    await internal.close();
  }
});

test('fetch follows an allowed redirect', async () => {
  const res = await client().fetch(`${server.origin}/chain/2`);
  assert.is(res.status, 200);
  assert.is(res.redirected, true);
  assert.is(await res.text(), 'end of chain');
});

test('fetch sends method, headers and body, also when given a Request object of the global fetch', async () => {
  const c = client();
  const init = { method: 'POST', body: '{"jsonrpc":"2.0"}', headers: { 'content-type': 'application/json', authorization: 'Bearer t' } };
  const direct = await (await c.fetch(`${server.origin}/echo`, init)).json();
  assert.equal(direct, { method: 'POST', body: '{"jsonrpc":"2.0"}', auth: 'Bearer t', type: 'application/json', ua: 'ServiceChat/1' });
  const viaRequest = await (await c.fetch(new Request(`${server.origin}/echo`, init))).json();
  assert.equal(viaRequest, direct);
});

test.run();
