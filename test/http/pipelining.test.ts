import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor, until } from '../helpers/until.js';
import { CREDENTIAL_TTL_MS, REFRESH_AHEAD_MS } from '../../src/auth/credential-cache.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { createToken, setupOwner, type TestSession, type TestToken } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
const clock = new FakeClock();
test.before(async () => { s = await startTestServer({ clock }); });
test.after(async () => { await s.stop(); });

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\nHost: t\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
const post = (path: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/**
 * Writes `requests` in one write on one connection; resolves with the status lines received within `waitMs`, and
 * whether the server closed the connection (which ends the wait early).
 */
async function pipeline(requests: string[], waitMs = 1500): Promise<{ statuses: number[]; bodies: string[]; closed: boolean }> {
  const socket = connect(s.port, '127.0.0.1', () => socket.write(requests.join('')));
  let raw = '';
  socket.on('data', (b) => { raw += String(b); });
  const closedNow = new Promise<boolean>((r) => { socket.on('close', () => r(true)); socket.on('error', () => r(true)); });
  const closed = await Promise.race([closedNow, quietFor(waitMs, 'the server closing the connection').then(() => false)]);
  socket.destroy();
  // Each answer has a Content-Length body and no trailing newline: the next status line follows the body directly.
  const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  const bodies = raw.split(/HTTP\/1\.1 \d{3} /).slice(1).map((part) => part.slice(part.indexOf('\r\n\r\n') + 4));
  return { statuses, bodies, closed };
}

test('pipelined requests to routes that answer at once come back in order, bodies included', async () => {
  const r = await pipeline([
    get('/healthz'),
    get('/api/v1/nope'),
    post('/api/v1/setup', '{}'),
    post('/api/v1/auth/login', '{not json'),
    `DELETE /healthz HTTP/1.1\r\nHost: t\r\n\r\n`,
    get('/healthz'),
  ]);
  assert.equal(r.statuses, [200, 404, 422, 400, 405, 200]);
  assert.match(r.bodies[0], '"ok":true');
  assert.match(r.bodies[2], '"code":"invalid"');
  assert.match(r.bodies[3], 'body: not valid JSON');
  assert.not.ok(r.closed, 'the connection stays open');
});

// uWebSockets.js refuses a pipelined request that arrives while the previous response still waits on I/O
// (here the store thread): it closes the connection and aborts that response (docs/performance.md, issue 27).
test('a pipelined request behind one that waits on storage closes the connection, and the server carries on', async () => {
  const r = await pipeline([get('/api/v1/setup'), get('/api/v1/setup'), get('/healthz')]);
  assert.ok(r.closed);
  assert.is(r.statuses.length, 0, 'no partial or out-of-order answer');
  await until(() => s.http.inFlight === 0, { interval: 20, message: () => `the aborted request no longer in flight (${s.http.inFlight} in flight)` });
  assert.is((await s.request('GET', '/api/v1/setup')).status, 200);
});

// The bots list is kept in memory (src/bots/list-cache.ts) and credentials for 2 s (src/auth/credential-cache.ts):
// once both are warm the request waits on no I/O, so uWS answers it before it parses the next one.
let owner: TestSession;
let token: TestToken;
const bearer = () => ({ Authorization: token.headers.authorization });
const cookie = () => ({ Cookie: owner.cookie });

test('pipelined authenticated bots lists (token and session, list kept) are answered in order', async () => {
  owner = await setupOwner(s);
  for (const name of ['First', 'Second']) assert.is((await s.request('POST', '/api/v1/bots', { body: { name }, headers: owner.headers })).status, 201);
  token = await createToken(s, owner, ['bots:read']);
  assert.is((await s.request('GET', '/api/v1/bots', { headers: token.headers })).status, 200, 'warms the list and the token');
  assert.is((await s.request('GET', '/api/v1/bots', { headers: owner.headers })).status, 200, 'warms the session');
  const r = await pipeline([
    get('/api/v1/bots', bearer()), get('/api/v1/bots?limit=1', cookie()), get('/healthz'), get('/api/v1/bots', cookie()),
    ...Array.from({ length: 20 }, () => get('/api/v1/bots', bearer())),
  ]);
  assert.not.ok(r.closed, 'the connection stays open');
  assert.equal(r.statuses, Array(24).fill(200));
  assert.equal(JSON.parse(r.bodies[0]).items.map((b: { name: string }) => b.name), ['Second', 'First']);
  assert.equal(JSON.parse(r.bodies[1]).items.map((b: { name: string }) => b.name), ['Second']);
  assert.match(r.bodies[2], '"ok":true');
  assert.is(r.bodies[3], r.bodies[0]);
});

// Kept credentials and lists are read again beside the requests before they lapse, so a client that keeps
// pipelining is never made to wait for the store (which would close its connection).
test('a busy client keeps pipelining past the lifetime of what is kept', async () => {
  for (let step = 0; step < 4; step++) {
    await clock.advance(CREDENTIAL_TTL_MS - REFRESH_AHEAD_MS + 100);
    const r = await pipeline([get('/api/v1/bots', bearer()), get('/api/v1/bots', cookie()), get('/api/v1/bots', bearer())], 400);
    assert.not.ok(r.closed, `step ${step}: the connection stays open`);
    assert.equal(r.statuses, [200, 200, 200], `step ${step}`);
  }
});

test.run();
