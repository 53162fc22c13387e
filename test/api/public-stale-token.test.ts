import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createToken, DEFAULT_PASSWORD, setupOwner, type TestSession, type TestToken } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 40, item 10: public endpoints refused a request carrying a stale bearer token instead of ignoring it.
let s: TestServer;
let owner: TestSession;
let revoked: TestToken;
test.before(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
  revoked = await createToken(s, owner, ['bots:read']);
  assert.is((await s.request('DELETE', `/api/v1/tokens/${revoked.id}`, { headers: owner.headers })).status, 204);
});
test.after(async () => { await s.stop(); });

const stale: Array<[string, Record<string, string>]> = [
  ['a revoked token', {}],
  ['an unknown token', { authorization: 'Bearer sct_0000000000000000000000000000000000000000000' }],
  ['a malformed header', { authorization: 'Basic b3duZXI6cGFzc3dvcmQ=' }],
];

test('public operations ignore a stale, unknown or malformed Authorization header and answer as to anyone', async () => {
  for (const [what, headers] of stale) {
    const h = Object.keys(headers).length ? headers : revoked.headers;
    const setup = await s.request('GET', '/api/v1/setup', { headers: h });
    assert.is(setup.status, 200, `GET /setup with ${what}: ${JSON.stringify(setup.body)}`);
    const login = await s.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: DEFAULT_PASSWORD }, headers: h });
    assert.is(login.status, 200, `sign-in with ${what}: ${JSON.stringify(login.body)}`);
  }
});

test('operations that need a caller still refuse the stale token with 401', async () => {
  const r = await s.request('GET', '/api/v1/bots', { headers: revoked.headers });
  assert.is(r.status, 401);
  assert.match(r.body.error.message, /revoked/);
});

test.run();
