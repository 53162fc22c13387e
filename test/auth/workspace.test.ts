import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addMember, createToken, DEFAULT_PASSWORD, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let owner: TestSession;
test.before(async () => { s = await startTestServer(); owner = await setupOwner(s, { workspaceName: 'Acme' }); });
test.after(async () => { await s.stop(); });

test('settings start with sensible defaults and the workspace name', async () => {
  const r = await s.request('GET', '/api/v1/settings', { headers: owner.headers });
  assert.is(r.status, 200);
  assert.equal(r.body, { name: 'Acme', defaultLanguage: 'en', timezone: 'UTC', conversationRetentionDays: null, allowedEmailDomains: [] });
});

test('an admin changes settings; a settings:read token may read them but not change them', async () => {
  const admin = await addMember(s, owner, 'admin');
  const r = await s.request('PATCH', '/api/v1/settings', { body: { timezone: 'Europe/Berlin', conversationRetentionDays: 90 }, headers: admin.headers });
  assert.is(r.status, 200);
  assert.is(r.body.timezone, 'Europe/Berlin');
  assert.is(r.body.conversationRetentionDays, 90);
  assert.is(r.body.name, 'Acme');
  const t = await createToken(s, owner, ['settings:read']);
  assert.is((await s.request('GET', '/api/v1/settings', { headers: t.headers })).body.timezone, 'Europe/Berlin');
  assert.is((await s.request('PATCH', '/api/v1/settings', { body: { name: 'x' }, headers: t.headers })).status, 403);
  const agent = await addMember(s, owner, 'agent');
  assert.is((await s.request('PATCH', '/api/v1/settings', { body: { name: 'x' }, headers: agent.headers })).status, 403);
});

test('bad settings are refused naming the field', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ timezone: 'Mars/Olympus' }, /^timezone:/],
    [{ conversationRetentionDays: 0 }, /^conversationRetentionDays:/],
    [{ allowedEmailDomains: ['example.com', 'not a domain'] }, /^allowedEmailDomains\.1:/],
    [{ name: '' }, /^name:/],
    [{ colour: 'red' }, /colour/],
  ];
  for (const [body, re] of cases) {
    const r = await s.request('PATCH', '/api/v1/settings', { body, headers: owner.headers });
    assert.is(r.status, 422, JSON.stringify(body));
    assert.match(r.body.error.message, re);
  }
});

test('allowed e-mail domains limit who can be invited', async () => {
  await s.request('PATCH', '/api/v1/settings', { body: { allowedEmailDomains: ['acme.com'] }, headers: owner.headers });
  const no = await s.request('POST', '/api/v1/members/invite', { body: { email: 'x@gmail.com', role: 'agent' }, headers: owner.headers });
  assert.is(no.status, 422);
  assert.match(no.body.error.message, /^email:/);
  const yes = await s.request('POST', '/api/v1/members/invite', { body: { email: 'x@acme.com', role: 'agent' }, headers: owner.headers });
  assert.is(yes.status, 201);
  await s.request('PATCH', '/api/v1/settings', { body: { allowedEmailDomains: [] }, headers: owner.headers });
});

test('the audit log records who changed what, newest first, with before paging', async () => {
  const r = await s.request('GET', '/api/v1/audit?limit=3', { headers: owner.headers });
  assert.is(r.status, 200);
  assert.is(r.body.items.length, 3);
  assert.ok(r.body.nextBefore);
  const first = r.body.items[0];
  assert.is(first.action, 'settings.changed');
  assert.equal(first.actor, { kind: 'user', id: owner.userId, name: 'Olivia Owner' });
  assert.equal(first.target, { type: 'workspace', id: owner.workspaceId });
  const ats = r.body.items.map((e: any) => e.id);
  assert.equal([...ats].sort().reverse(), ats, 'newest first');
  const next = await s.request('GET', `/api/v1/audit?limit=3&before=${r.body.nextBefore}`, { headers: owner.headers });
  assert.ok(next.body.items.every((e: any) => e.id < r.body.nextBefore));
  const all = await s.request('GET', '/api/v1/audit?limit=200', { headers: owner.headers });
  const actions = all.body.items.map((e: any) => e.action);
  for (const a of ['workspace.created', 'member.invited', 'invite.accepted', 'token.created', 'settings.changed']) assert.ok(actions.includes(a), a);
  assert.is(all.body.nextBefore, null);
  const tokenEntry = all.body.items.find((e: any) => e.action === 'token.created');
  assert.not.ok(JSON.stringify(tokenEntry).includes('sct_'), 'no token values in the audit log');
});

test('a bad audit limit names the query field', async () => {
  const r = await s.request('GET', '/api/v1/audit?limit=0', { headers: owner.headers });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /limit/);
});

test('only the owner can delete the workspace', async () => {
  const admin = await addMember(s, owner, 'admin');
  assert.is((await s.request('DELETE', '/api/v1/workspace', { headers: admin.headers })).status, 403);
});

test('deleting the workspace removes everything, runs cleanups and ends every session and token', async () => {
  await s.app.vectors.ensureCollection('test_vectors', 3);
  await s.app.vectors.upsert('test_vectors', [{ id: 'p1', vector: [1, 0, 0], payload: { workspaceId: owner.workspaceId } }]);
  const cleaned: string[] = [];
  s.services.workspaceDeletion.onDelete(async (ws) => { cleaned.push(ws); await s.app.vectors.deleteByFilter('test_vectors', { workspaceId: ws }); });
  const agent = await addMember(s, owner, 'agent');
  const t = await createToken(s, owner, ['settings:read']);
  // Each credential is used first, so what the server keeps of it (src/auth/credential-cache.ts) must go too.
  assert.is((await s.request('GET', '/api/v1/me', { headers: agent.headers })).status, 200);
  assert.is((await s.request('GET', '/api/v1/settings', { headers: t.headers })).status, 200);
  const r = await s.request('DELETE', '/api/v1/workspace', { headers: owner.headers });
  assert.is(r.status, 204);
  assert.equal(cleaned, [owner.workspaceId]);
  assert.is(await s.app.vectors.count('test_vectors', { workspaceId: owner.workspaceId }), 0);
  assert.is((await s.request('GET', '/api/v1/me', { headers: owner.headers })).status, 401);
  assert.is((await s.request('GET', '/api/v1/me', { headers: agent.headers })).status, 401);
  assert.is((await s.request('GET', '/api/v1/settings', { headers: t.headers })).status, 401);
  assert.is((await s.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: DEFAULT_PASSWORD } })).status, 401);
  assert.is((await s.request('GET', '/api/v1/setup')).body.needsSetup, true, 'the server can be set up again');
  await setupOwner(s, { workspaceName: 'Fresh start' });
});

test.run();
