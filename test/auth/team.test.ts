import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { getPresence } from '../../src/auth/presence.js';
import { hashToken } from '../../src/security/secret-box.js';
import { addMember, createToken, DEFAULT_PASSWORD, loginAs, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let owner: TestSession;
const clock = new FakeClock();
test.before(async () => { s = await startTestServer({ clock }); owner = await setupOwner(s); });
test.after(async () => { await s.stop(); });

const invite = (who: TestSession, email: string, role: string) => s.request('POST', '/api/v1/members/invite', { body: { email, role }, headers: who.headers });
const tokenOf = (link: string) => link.split('/admin/#/invite/')[1];

test('an invitation returns a link; its token is stored only as a hash', async () => {
  const r = await invite(owner, 'Ann@Example.com', 'agent');
  assert.is(r.status, 201);
  assert.ok(r.body.link.startsWith(`${s.app.config.publicUrl}/admin/#/invite/`));
  assert.is(r.body.invite.email, 'ann@example.com');
  const token = tokenOf(r.body.link);
  const stored = await s.app.records.invites.findById(owner.workspaceId, r.body.invite.id);
  assert.is(stored!.tokenHash, hashToken(token));
  assert.not.ok(JSON.stringify(stored).includes(token));
  assert.is(stored!.expiresAt, clock.now() + 7 * 24 * 3600 * 1000);
});

test('the invitation page is public and tells the workspace, role and e-mail', async () => {
  const r0 = await invite(owner, 'bea@example.com', 'viewer');
  const r = await s.request('GET', `/api/v1/invites/${tokenOf(r0.body.link)}`);
  assert.is(r.status, 200);
  assert.equal(r.body.workspace, { name: 'Test workspace' });
  assert.is(r.body.role, 'viewer');
  assert.is(r.body.email, 'bea@example.com');
  assert.is((await s.request('GET', '/api/v1/invites/not-a-real-token')).status, 404);
});

test('accepting creates the user, signs them in, and the link works only once', async () => {
  const r0 = await invite(owner, 'cat@example.com', 'agent');
  const token = tokenOf(r0.body.link);
  const r = await s.request('POST', `/api/v1/invites/${token}/accept`, { body: { name: 'Cat', password: DEFAULT_PASSWORD } });
  assert.is(r.status, 201);
  assert.is(r.body.user.role, 'agent');
  assert.is(r.body.user.email, 'cat@example.com');
  assert.match(r.headers.get('set-cookie') ?? '', /^sc_session=/);
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0];
  assert.is((await s.request('GET', '/api/v1/me', { headers: { cookie } })).body.user.name, 'Cat');
  const again = await s.request('POST', `/api/v1/invites/${token}/accept`, { body: { name: 'Cat 2', password: DEFAULT_PASSWORD } });
  assert.is(again.status, 404);
  await loginAs(s, 'cat@example.com');
});

test('an invitation expires after 7 days', async () => {
  const r0 = await invite(owner, 'dan@example.com', 'viewer');
  await clock.advance(7 * 24 * 3600 * 1000);
  assert.is((await s.request('GET', `/api/v1/invites/${tokenOf(r0.body.link)}`)).status, 404);
  assert.is((await s.request('POST', `/api/v1/invites/${tokenOf(r0.body.link)}/accept`, { body: { name: 'Dan', password: DEFAULT_PASSWORD } })).status, 404);
});

test('members lists people with role and presence, and open invitations; a cancelled invitation is gone', async () => {
  const r0 = await invite(owner, 'eve@example.com', 'agent');
  const list = await s.request('GET', '/api/v1/members', { headers: { cookie: owner.cookie } });
  assert.is(list.status, 200);
  const me = list.body.items.find((m: any) => m.id === owner.userId);
  assert.is(me.role, 'owner');
  assert.is(me.presence, 'offline');
  assert.ok(list.body.invites.some((i: any) => i.email === 'eve@example.com'));
  const del = await s.request('DELETE', `/api/v1/members/invites/${r0.body.invite.id}`, { headers: owner.headers });
  assert.is(del.status, 204);
  const after = await s.request('GET', '/api/v1/members', { headers: { cookie: owner.cookie } });
  assert.not.ok(after.body.invites.some((i: any) => i.email === 'eve@example.com'));
  assert.is((await s.request('GET', `/api/v1/invites/${tokenOf(r0.body.link)}`)).status, 404);
});

test('inviting an existing member is a conflict; a bad e-mail names the field', async () => {
  assert.is((await invite(owner, 'owner@example.com', 'agent')).status, 409);
  const bad = await invite(owner, 'not-an-email', 'agent');
  assert.is(bad.status, 422);
  assert.match(bad.body.error.message, /^email:/);
  const badRole = await invite(owner, 'x@example.com', 'superuser');
  assert.match(badRole.body.error.message, /^role:/);
});

test('an admin cannot invite or promote anyone above their own role', async () => {
  const admin = await addMember(s, owner, 'admin');
  assert.is((await invite(admin, 'boss@example.com', 'owner')).status, 403);
  const viewer = await addMember(s, owner, 'viewer');
  const up = await s.request('PATCH', `/api/v1/members/${viewer.userId}`, { body: { role: 'owner' }, headers: admin.headers });
  assert.is(up.status, 403);
  const ok = await s.request('PATCH', `/api/v1/members/${viewer.userId}`, { body: { role: 'agent' }, headers: admin.headers });
  assert.is(ok.status, 200);
  assert.is(ok.body.role, 'agent');
});

test('a role change takes effect on the next request', async () => {
  const agent = await addMember(s, owner, 'agent');
  assert.is((await s.request('GET', '/api/v1/audit', { headers: agent.headers })).status, 403);
  await s.request('PATCH', `/api/v1/members/${agent.userId}`, { body: { role: 'admin' }, headers: owner.headers });
  assert.is((await s.request('GET', '/api/v1/audit', { headers: agent.headers })).status, 200);
});

test('an admin cannot demote or remove the owner', async () => {
  const admin = await addMember(s, owner, 'admin');
  assert.is((await s.request('PATCH', `/api/v1/members/${owner.userId}`, { body: { role: 'admin' }, headers: admin.headers })).status, 403);
  assert.is((await s.request('DELETE', `/api/v1/members/${owner.userId}`, { headers: admin.headers })).status, 403);
});

test('the last owner cannot step down or be removed; with a second owner they can', async () => {
  const demote = await s.request('PATCH', `/api/v1/members/${owner.userId}`, { body: { role: 'admin' }, headers: owner.headers });
  assert.is(demote.status, 409);
  assert.is(demote.body.error.code, 'conflict');
  assert.is((await s.request('DELETE', `/api/v1/members/${owner.userId}`, { headers: owner.headers })).status, 409);
  const second = await addMember(s, owner, 'owner');
  const ok = await s.request('PATCH', `/api/v1/members/${owner.userId}`, { body: { role: 'admin' }, headers: second.headers });
  assert.is(ok.status, 200);
  await s.request('PATCH', `/api/v1/members/${owner.userId}`, { body: { role: 'owner' }, headers: second.headers });
});

test('removing a member ends their sessions at once', async () => {
  const agent = await addMember(s, owner, 'agent');
  assert.is((await s.request('GET', '/api/v1/me', { headers: agent.headers })).status, 200);
  const r = await s.request('DELETE', `/api/v1/members/${agent.userId}`, { headers: owner.headers });
  assert.is(r.status, 204);
  assert.is((await s.request('GET', '/api/v1/me', { headers: agent.headers })).status, 401);
  assert.is((await s.request('POST', '/api/v1/auth/login', { body: { email: agent.email, password: DEFAULT_PASSWORD } })).status, 401);
  assert.is((await s.request('DELETE', `/api/v1/members/${agent.userId}`, { headers: owner.headers })).status, 404);
});

test('removing an admin revokes the API tokens they made at once; others\' tokens keep working; the audit entry counts them', async () => {
  const admin = await addMember(s, owner, 'admin');
  const theirs = await createToken(s, admin, ['leads:read']);
  const cached = await s.request('GET', '/api/v1/leads', { headers: theirs.headers });
  assert.is(cached.status, 200, 'works while they are a member (and is now in the credential cache)');
  const ownersToken = await createToken(s, owner, ['leads:read']);
  assert.is((await s.request('DELETE', `/api/v1/members/${admin.userId}`, { headers: owner.headers })).status, 204);
  const after = await s.request('GET', '/api/v1/leads', { headers: theirs.headers });
  assert.is(after.status, 401, JSON.stringify(after.body));
  assert.is((await s.request('GET', '/api/v1/leads', { headers: ownersToken.headers })).status, 200);
  const tokens = (await s.request('GET', '/api/v1/tokens', { headers: owner.headers })).body.items.map((t: any) => t.id);
  assert.not.ok(tokens.includes(theirs.id), 'gone from the token list');
  assert.ok(tokens.includes(ownersToken.id));
  const audit = (await s.request('GET', '/api/v1/audit?limit=100', { headers: owner.headers })).body.items.find((e: any) => e.action === 'member.removed' && e.target.id === admin.userId);
  assert.is(audit.detail.tokensRevoked, 1);
});

test('presence is set with PUT /me/presence and read by getPresence and the members list', async () => {
  const agent = await addMember(s, owner, 'agent');
  const r = await s.request('PUT', '/api/v1/me/presence', { body: { presence: 'away' }, headers: agent.headers });
  assert.is(r.status, 200);
  assert.is(r.body.presence, 'away');
  const all = await getPresence(s.app, owner.workspaceId);
  assert.is(all.find((m) => m.userId === agent.userId)!.presence, 'away');
  const list = await s.request('GET', '/api/v1/members', { headers: agent.headers });
  assert.is(list.body.items.find((m: any) => m.id === agent.userId).presence, 'away');
  const bad = await s.request('PUT', '/api/v1/me/presence', { body: { presence: 'busy' }, headers: agent.headers });
  assert.is(bad.status, 422);
  assert.match(bad.body.error.message, /^presence:/);
});

test('a viewer cannot set presence (agents and up take conversations)', async () => {
  const viewer = await addMember(s, owner, 'viewer');
  assert.is((await s.request('PUT', '/api/v1/me/presence', { body: { presence: 'online' }, headers: viewer.headers })).status, 403);
});

test.run();
