import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { CREDENTIAL_TTL_MS } from '../../src/auth/credential-cache.js';
import { hashToken } from '../../src/security/secret-box.js';
import { addMember, createToken, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let owner: TestSession;
const clock = new FakeClock();
test.before(async () => { s = await startTestServer({ clock }); owner = await setupOwner(s); });
test.after(async () => { await s.stop(); });

test('a new token is returned once, prefixed, and only its hash is stored', async () => {
  const r = await s.request('POST', '/api/v1/tokens', { body: { name: 'CRM sync', scopes: ['leads:read', 'settings:read'] }, headers: owner.headers });
  assert.is(r.status, 201);
  assert.match(r.body.value, /^sct_[A-Za-z0-9_-]{40,}$/);
  assert.is(r.body.token.name, 'CRM sync');
  assert.equal(r.body.token.scopes, ['leads:read', 'settings:read']);
  assert.is(r.body.token.role, 'viewer');
  assert.is(r.body.token.expiresAt, null);
  const stored = await s.app.records.apiTokens.findById(owner.workspaceId, r.body.token.id);
  assert.ok(stored);
  assert.is(stored!.tokenHash, hashToken(r.body.value));
  assert.not.ok(JSON.stringify(stored).includes(r.body.value), 'the value itself is not stored');
  const list = await s.request('GET', '/api/v1/tokens', { headers: owner.headers });
  assert.is(list.status, 200);
  const item = list.body.items.find((t: any) => t.id === r.body.token.id);
  assert.is(item.name, 'CRM sync');
  assert.not.ok(JSON.stringify(list.body).includes(r.body.value), 'the list never shows the value');
  assert.not.ok('tokenHash' in item);
});

test('a token works as a Bearer credential and its use is recorded as lastUsedAt', async () => {
  const t = await createToken(s, owner, ['settings:read']);
  const r = await s.request('GET', '/api/v1/settings', { headers: t.headers });
  assert.is(r.status, 200);
  const list = await s.request('GET', '/api/v1/tokens', { headers: owner.headers });
  assert.is(list.body.items.find((x: any) => x.id === t.id).lastUsedAt, clock.now());
});

test('an unknown scope is refused with 422 naming scopes.N', async () => {
  const r = await s.request('POST', '/api/v1/tokens', { body: { name: 'x', scopes: ['bots:read', 'bots:everything'] }, headers: owner.headers });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /^scopes\.1:/);
});

test('an expiry in the past is refused naming expiresAt', async () => {
  const r = await s.request('POST', '/api/v1/tokens', { body: { name: 'x', scopes: ['bots:read'], expiresAt: clock.now() - 1 }, headers: owner.headers });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /^expiresAt:/);
});

test('a revoked token gets 401 at once', async () => {
  const t = await createToken(s, owner, ['settings:read']);
  assert.is((await s.request('GET', '/api/v1/settings', { headers: t.headers })).status, 200);
  const del = await s.request('DELETE', `/api/v1/tokens/${t.id}`, { headers: owner.headers });
  assert.is(del.status, 204);
  const r = await s.request('GET', '/api/v1/settings', { headers: t.headers });
  assert.is(r.status, 401);
  assert.is(r.body.error.code, 'unauthorized');
  assert.is((await s.request('DELETE', `/api/v1/tokens/${t.id}`, { headers: owner.headers })).status, 404);
});

test('a token deleted outside this process (another server, the store edited by hand) is refused within 2 s', async () => {
  const t = await createToken(s, owner, ['settings:read']);
  assert.is((await s.request('GET', '/api/v1/settings', { headers: t.headers })).status, 200);
  await s.app.records.apiTokens.deleteOne({ workspaceId: owner.workspaceId, _id: t.id });
  await clock.advance(CREDENTIAL_TTL_MS);
  const r = await s.request('GET', '/api/v1/settings', { headers: t.headers });
  assert.is(r.status, 401);
  assert.match(r.body.error.message, /revoked/);
});

test('a token past its expiry gets 401', async () => {
  const t = await createToken(s, owner, ['settings:read'], { expiresAt: clock.now() + 60_000 });
  assert.is((await s.request('GET', '/api/v1/settings', { headers: t.headers })).status, 200);
  await clock.advance(60_000);
  const r = await s.request('GET', '/api/v1/settings', { headers: t.headers });
  assert.is(r.status, 401);
  assert.match(r.body.error.message, /expired/);
});

test('a made-up or malformed bearer token gets 401', async () => {
  for (const authorization of ['Bearer sct_madeup', 'Bearer something-else', 'Basic dXNlcjpwYXNz']) {
    const r = await s.request('GET', '/api/v1/settings', { headers: { authorization } });
    assert.is(r.status, 401, authorization);
  }
});

test('a token acts with the highest role its scopes imply', async () => {
  const agentish = await createToken(s, owner, ['conversations:write', 'bots:read']);
  const adminish = await createToken(s, owner, ['conversations:write', 'bots:write']);
  const list = (await s.request('GET', '/api/v1/tokens', { headers: owner.headers })).body.items;
  assert.is(list.find((x: any) => x.id === agentish.id).role, 'agent');
  assert.is(list.find((x: any) => x.id === adminish.id).role, 'admin');
  // DELETE /conversations/{id} is conversations:write +admin.
  assert.is((await s.request('DELETE', '/api/v1/conversations/conv_x', { headers: agentish.headers })).status, 403);
  assert.not.ok([401, 403].includes((await s.request('DELETE', '/api/v1/conversations/conv_x', { headers: adminish.headers })).status));
});

test('tokens are managed by admin sessions only: not by tokens, not by agents', async () => {
  const t = await createToken(s, owner, ['bots:write']);
  assert.is((await s.request('GET', '/api/v1/tokens', { headers: t.headers })).status, 403);
  const agent = await addMember(s, owner, 'agent');
  assert.is((await s.request('POST', '/api/v1/tokens', { body: { name: 'a', scopes: ['bots:read'] }, headers: agent.headers })).status, 403);
  const admin = await addMember(s, owner, 'admin');
  assert.is((await s.request('POST', '/api/v1/tokens', { body: { name: 'a', scopes: ['bots:read'] }, headers: admin.headers })).status, 201);
});

test.run();
