import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConnectTarget } from '../../src/security/guarded-client.js';
import { clientPool, outboundFailure, startServer, tableLookup, type LoopbackServer } from './loopback-server.js';

let server: LoopbackServer;
const { client, closeAll } = clientPool({ allowPrivateNetwork: false });

test.before(async () => {
  server = await startServer((_req, res) => res.end('hello'));
});
test.after(async () => {
  await closeAll();
  await server.close();
});

test('literal addresses of every refused class are blocked before any connection', async () => {
  const c = client({ allowPrivateNetwork: false, beforeConnect: () => assert.unreachable('no socket may open') });
  const urls = [
    'http://10.0.0.1/', 'http://172.16.5.5/', 'http://192.168.0.10/', 'http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/', 'http://198.18.0.1/', 'http://240.0.0.1/', 'http://255.255.255.255/', 'http://224.0.0.1/',
    'http://192.0.2.1/', 'http://198.51.100.1/', 'http://203.0.113.1/', 'http://0.0.0.0/', 'http://192.0.0.8/',
    'http://[::1]/', 'http://[::]/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://[ff02::1]/', 'http://[2001:db8::1]/',
    'http://[::ffff:127.0.0.1]/', 'http://[::ffff:10.1.2.3]/', 'http://[64:ff9b::a00:1]/', 'http://[2002:a00:1::1]/',
  ];
  for (const url of urls) {
    const err = await outboundFailure(c.request(url));
    assert.is(err.code, 'blocked_address', url);
  }
});

test('names that resolve to a refused address are blocked, each after one lookup', async () => {
  const table = { 'intranet.test': '10.1.2.3', 'meta.test': '169.254.169.254', 'v6.test': 'fd00::5', 'mapped.test': '::ffff:192.168.1.1', 'loop.test': '127.0.0.1' };
  const { lookup, calls } = tableLookup(table);
  const c = client({ allowPrivateNetwork: false, lookup, beforeConnect: () => assert.unreachable('no socket may open') });
  for (const name of Object.keys(table)) {
    const err = await outboundFailure(c.request(`http://${name}/`));
    assert.is(err.code, 'blocked_address', name);
  }
  assert.equal(calls, Object.keys(table));
});

test('a name with one private answer among public ones is blocked', async () => {
  const { lookup } = tableLookup({ 'mixed.test': ['93.184.216.34', '127.0.0.1'] });
  const c = client({ allowPrivateNetwork: false, lookup });
  assert.is((await outboundFailure(c.request(`http://mixed.test:${server.port}/`))).code, 'blocked_address');
  assert.is(server.seen.length, 0);
});

test('numeric spellings of loopback are normalised and refused', async () => {
  const c = client({ allowPrivateNetwork: false });
  for (const host of ['2130706433', '0x7f.0.0.1', '0177.0.0.1', '0x7f000001', '127.1', '127.0.0.1.']) {
    assert.is(new URL(`http://${host}/`).hostname, '127.0.0.1', host);
    const err = await outboundFailure(c.request(`http://${host}:${server.port}/`));
    assert.is(err.code, 'blocked_address', host);
  }
  assert.is(server.seen.length, 0);
});

test('with private networks allowed, a numeric spelling reaches the loopback server', async () => {
  const c = client({ allowPrivateNetwork: true });
  const res = await c.request(`http://0x7f.0.0.1:${server.port}/n`);
  assert.is(res.status, 200);
  assert.is(res.body.toString(), 'hello');
  assert.is(res.url, `http://127.0.0.1:${server.port}/n`);
});

test('a trailing-dot name is resolved without the dot and still checked', async () => {
  const { lookup, calls } = tableLookup({ 'loop.test': '127.0.0.1' });
  const err = await outboundFailure(client({ allowPrivateNetwork: false, lookup }).request(`http://loop.test.:${server.port}/`));
  assert.is(err.code, 'blocked_address');
  assert.equal(calls, ['loop.test']);
});

test('with private networks allowed, loopback is reachable by request and by fetch', async () => {
  const { lookup } = tableLookup({ 'app.test': '127.0.0.1' });
  const c = client({ allowPrivateNetwork: true, lookup });
  assert.is((await c.request(`http://127.0.0.1:${server.port}/a`)).body.toString(), 'hello');
  assert.is((await c.request(`http://[::ffff:127.0.0.1]:${server.port}/a`)).status, 200);
  const res = await c.fetch(`http://app.test:${server.port}/b`);
  assert.is(res.status, 200);
  assert.is(await res.text(), 'hello');
});

test('fetch refuses loopback with the same typed error', async () => {
  const c = client({ allowPrivateNetwork: false });
  assert.is((await outboundFailure(c.fetch(`http://127.0.0.1:${server.port}/`))).code, 'blocked_address');
  assert.is((await outboundFailure(c.fetch(new Request(`http://[::1]:${server.port}/`)))).code, 'blocked_address');
});

test('rebinding: the address connected to is the one that was checked, from a single lookup', async () => {
  // First answer public, every later answer loopback: a second lookup at connect time would reach loopback.
  let n = 0;
  const lookup = async () => [{ address: n++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 as const }];
  const targets: ConnectTarget[] = [];
  const c = client({
    allowPrivateNetwork: false,
    lookup,
    beforeConnect: (t) => {
      targets.push(t);
      throw new Error('test stops here instead of leaving the machine');
    },
  });
  await outboundFailure(c.request(`http://rebind.test:${server.port}/`));
  assert.is(n, 1);
  assert.equal(targets, [{ hostname: 'rebind.test', address: '93.184.216.34', family: 4, port: server.port, protocol: 'http:' }]);
  // The next connection asks again and now gets loopback: refused, and the server saw nothing.
  const err = await outboundFailure(client({ allowPrivateNetwork: false, lookup }).request(`http://rebind.test:${server.port}/`));
  assert.is(err.code, 'blocked_address');
  assert.is(server.seen.filter((s) => s.headers.host?.startsWith('rebind.test')).length, 0);
});

test('rebinding: the socket goes to the resolved address, not to a fresh lookup of the name', async () => {
  // 127.0.0.2 has no listener; reaching the server proves the first (checked) answer was used.
  let n = 0;
  const lookup = async () => [{ address: n++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 as const }];
  const targets: string[] = [];
  const c = client({ allowPrivateNetwork: true, lookup, beforeConnect: (t) => targets.push(t.address) });
  const res = await c.request(`http://pinned.test:${server.port}/p`);
  assert.is(res.status, 200);
  assert.is(n, 1);
  assert.equal(targets, ['127.0.0.1']);
  assert.is(server.seen.at(-1)?.headers.host, `pinned.test:${server.port}`);
});

test('a name that does not resolve gives dns_failed', async () => {
  const { lookup } = tableLookup({ 'odd.test': 'not-an-ip' });
  const c = client({ allowPrivateNetwork: false, lookup });
  assert.is((await outboundFailure(c.request('http://missing.test/'))).code, 'dns_failed');
  assert.is((await outboundFailure(c.request('http://odd.test/'))).code, 'dns_failed');
});

test('a closed port gives connect_failed', async () => {
  const probe = await startServer(() => undefined);
  await probe.close();
  const err = await outboundFailure(client({ allowPrivateNetwork: true }).request(`http://127.0.0.1:${probe.port}/`));
  assert.is(err.code, 'connect_failed');
  assert.match(err.message, /refused/);
});

test('only http and https URLs without credentials are accepted', async () => {
  const c = client({ allowPrivateNetwork: true });
  for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'gopher://127.0.0.1/', 'not a url', 'http://user:pw@example.com/']) {
    assert.is((await outboundFailure(c.request(url))).code, 'invalid_url', url);
  }
});

test('with httpsOnly, plain http is refused', async () => {
  const err = await outboundFailure(client({ allowPrivateNetwork: true, httpsOnly: true }).request(`http://127.0.0.1:${server.port}/`));
  assert.is(err.code, 'invalid_url');
  assert.match(err.message, /https/);
});

test('error messages name the host but never header values or the query string', async () => {
  const { lookup } = tableLookup({ 'hook.test': '10.0.0.9' });
  const c = client({ allowPrivateNetwork: false, lookup });
  const err = await outboundFailure(c.request('http://hook.test/path?token=QUERYSECRET', { headers: { Authorization: 'Bearer HEADERSECRET' } }));
  assert.match(err.message, /hook\.test/);
  assert.not.match(err.message, /SECRET/);
  assert.match(err.message, /ALLOW_PRIVATE_NETWORK/);
});

test.run();
