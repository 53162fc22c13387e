import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { hashToken } from '../../src/security/secret-box.js';
import { DEFAULT_PASSWORD, loginAs, setupOwner } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DAY = 24 * 3600 * 1000;
let s: TestServer;
const clock = new FakeClock();
test.before(async () => { s = await startTestServer({ clock }); });
test.after(async () => { await s.stop(); });

test('a fresh server says setup is needed and that people sign in with a password', async () => {
  const r = await s.request('GET', '/api/v1/setup');
  assert.is(r.status, 200);
  assert.equal(r.body, { needsSetup: true, signIn: { methods: ['password'] } });
});

test('setup creates the owner and workspace and signs the owner in', async () => {
  const owner = await setupOwner(s);
  const me = await s.request('GET', '/api/v1/me', { headers: { cookie: owner.cookie } });
  assert.is(me.status, 200);
  assert.is(me.body.user.role, 'owner');
  assert.is(me.body.user.email, 'owner@example.com');
  assert.is(me.body.workspace.name, 'Test workspace');
  assert.is(me.body.csrfToken, owner.csrf);
  assert.equal(me.body.server, { version: '0.1.0' });
  assert.not.ok('passwordHash' in me.body.user);
  assert.is((await s.request('GET', '/api/v1/setup')).body.needsSetup, false);
});

test('a second setup is refused with 409 conflict', async () => {
  const r = await s.request('POST', '/api/v1/setup', { body: { email: 'x@example.com', password: 'another password', name: 'X', workspaceName: 'W2' } });
  assert.is(r.status, 409);
  assert.is(r.body.error.code, 'conflict');
});

test('the session cookie is HttpOnly, SameSite=Lax, Path=/ and lasts 14 days', async () => {
  const r = await s.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: DEFAULT_PASSWORD } });
  assert.is(r.status, 200);
  const c = r.headers.get('set-cookie') ?? '';
  assert.match(c, /^sc_session=/);
  assert.match(c, /HttpOnly/i);
  assert.match(c, /SameSite=Lax/i);
  assert.match(c, /Path=\//);
  assert.match(c, /Max-Age=1209600/);
  assert.not.match(c, /Secure/i, 'not Secure on plain http');
  assert.type(r.body.csrfToken, 'string');
});

test('every login gives a new session and CSRF token, and the store keeps only a hash of the cookie', async () => {
  const a = await loginAs(s, 'owner@example.com');
  const b = await loginAs(s, 'owner@example.com');
  assert.is.not(a.cookie, b.cookie);
  assert.is.not(a.csrf, b.csrf);
  const value = decodeURIComponent(a.cookie.split('=')[1]);
  const all = await s.app.records.sessions.find({ workspaceId: a.workspaceId });
  assert.not.ok(JSON.stringify(all).includes(value));
});

test('a wrong password or unknown e-mail gives 401 with the same message', async () => {
  const wrong = await s.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: 'nope nope nope' } });
  const unknown = await s.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'nope nope nope' } });
  assert.is(wrong.status, 401);
  assert.is(unknown.status, 401);
  assert.is(wrong.body.error.message, unknown.body.error.message);
});

test('login without a password names the field', async () => {
  const r = await s.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com' } });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /^password:/);
});

test('a state-changing session request without or with a wrong X-CSRF-Token gets 403 csrf', async () => {
  const a = await loginAs(s, 'owner@example.com');
  const none = await s.request('PATCH', '/api/v1/settings', { body: { timezone: 'UTC' }, headers: { cookie: a.cookie } });
  assert.is(none.status, 403);
  assert.is(none.body.error.code, 'csrf');
  const wrong = await s.request('PATCH', '/api/v1/settings', { body: { timezone: 'UTC' }, headers: { cookie: a.cookie, 'x-csrf-token': 'forged' } });
  assert.is(wrong.status, 403);
  assert.is(wrong.body.error.code, 'csrf');
  const other = await loginAs(s, 'owner@example.com');
  const crossed = await s.request('PATCH', '/api/v1/settings', { body: { timezone: 'UTC' }, headers: { cookie: a.cookie, 'x-csrf-token': other.csrf } });
  assert.is(crossed.body.error.code, 'csrf', 'a token from another session does not fit');
  const ok = await s.request('PATCH', '/api/v1/settings', { body: { timezone: 'UTC' }, headers: a.headers });
  assert.is(ok.status, 200);
});

test('logout ends the session on the server and clears the cookie', async () => {
  const a = await loginAs(s, 'owner@example.com');
  const r = await s.request('POST', '/api/v1/auth/logout', { headers: a.headers });
  assert.is(r.status, 204);
  assert.match(r.headers.get('set-cookie') ?? '', /Max-Age=0/);
  const me = await s.request('GET', '/api/v1/me', { headers: { cookie: a.cookie } });
  assert.is(me.status, 401);
  assert.is(me.body.error.code, 'unauthorized');
});

test('a stale cookie does not stop the browser from signing in again', async () => {
  const a = await loginAs(s, 'owner@example.com');
  await s.request('POST', '/api/v1/auth/logout', { headers: a.headers });
  const r = await s.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: DEFAULT_PASSWORD }, headers: { cookie: a.cookie } });
  assert.is(r.status, 200);
});

test('a session used now and then lives on past 14 days; one left alone expires after 14 days', async () => {
  const used = await loginAs(s, 'owner@example.com');
  const idle = await loginAs(s, 'owner@example.com');
  for (let i = 0; i < 3; i++) {
    await clock.advance(10 * DAY);
    assert.is((await s.request('GET', '/api/v1/me', { headers: { cookie: used.cookie } })).status, 200, `use ${i + 1}`);
  }
  assert.is((await s.request('GET', '/api/v1/me', { headers: { cookie: idle.cookie } })).status, 401);
});

test('renewal is written at most once an hour', async () => {
  const a = await loginAs(s, 'owner@example.com');
  const tokenHash = hashToken(decodeURIComponent(a.cookie.split('=')[1]));
  const read = async () => (await s.app.records.sessions.findOne({ workspaceId: a.workspaceId, tokenHash }))!;
  const first = await read();
  await clock.advance(10 * 60 * 1000);
  await s.request('GET', '/api/v1/me', { headers: { cookie: a.cookie } });
  assert.is((await read()).expiresAt, first.expiresAt, 'not rewritten after 10 minutes');
  await clock.advance(60 * 60 * 1000);
  await s.request('GET', '/api/v1/me', { headers: { cookie: a.cookie } });
  assert.is((await read()).expiresAt, clock.now() + 14 * DAY);
});

test('changing the password needs the old one and ends the other sessions', async () => {
  const a = await loginAs(s, 'owner@example.com');
  const b = await loginAs(s, 'owner@example.com');
  const wrong = await s.request('POST', '/api/v1/me/password', { body: { currentPassword: 'not it at all', newPassword: 'a brand new password' }, headers: a.headers });
  assert.is(wrong.status, 422);
  assert.match(wrong.body.error.message, /^currentPassword:/);
  const short = await s.request('POST', '/api/v1/me/password', { body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'short' }, headers: a.headers });
  assert.is(short.status, 422);
  assert.match(short.body.error.message, /^newPassword:/);
  const ok = await s.request('POST', '/api/v1/me/password', { body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'a brand new password' }, headers: a.headers });
  assert.is(ok.status, 204);
  assert.is((await s.request('GET', '/api/v1/me', { headers: { cookie: a.cookie } })).status, 200, 'this session stays');
  assert.is((await s.request('GET', '/api/v1/me', { headers: { cookie: b.cookie } })).status, 401, 'the other one ended');
  assert.is((await s.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: DEFAULT_PASSWORD } })).status, 401);
  await loginAs(s, 'owner@example.com', 'a brand new password');
});

test('the cookie is Secure when the server is reached over https', async () => {
  const secure = await startTestServer({ env: { PUBLIC_URL: 'https://chat.example.com' } });
  try {
    const r = await secure.request('POST', '/api/v1/setup', { body: { email: 'a@example.com', password: DEFAULT_PASSWORD, name: 'A', workspaceName: 'W' } });
    assert.is(r.status, 201);
    assert.match(r.headers.get('set-cookie') ?? '', /; Secure/);
  } finally {
    await secure.stop();
  }
});

test.run();
