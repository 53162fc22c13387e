/**
 * Refused input changes nothing: each bad request answers 422 naming the field, and reading the same data
 * afterwards (and the audit log) shows exactly what was there before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addMember, createToken, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let owner: TestSession;
test.before(async () => { s = await startTestServer(); owner = await setupOwner(s, { workspaceName: 'Acme' }); });
test.after(async () => { await s.stop(); });

const get = async (path: string) => {
  const r = await s.request('GET', path, { headers: owner.headers });
  assert.is(r.status, 200, `GET ${path}`);
  return r.body;
};

/** Sends the bad request, checks 422 naming `field`, and checks that `read` and the audit log are unchanged. */
async function refusedAndUnchanged(method: string, path: string, body: unknown, field: string, read: string) {
  const before = await get(read);
  const auditBefore = await get('/api/v1/audit?limit=200');
  const r = await s.request(method, path, { body, headers: owner.headers });
  assert.is(r.status, 422, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.error.code, 'invalid');
  assert.ok(r.body.error.message.startsWith(`${field}:`) || r.body.error.message.includes(field), `names ${field}: ${r.body.error.message}`);
  assert.equal(await get(read), before, `${read} unchanged`);
  assert.equal(await get('/api/v1/audit?limit=200'), auditBefore, 'nothing audited');
}

test('a settings change with one bad field changes no field at all', async () => {
  await refusedAndUnchanged('PATCH', '/api/v1/settings', { name: 'Renamed', timezone: 'Mars/Olympus' }, 'timezone', '/api/v1/settings');
  await refusedAndUnchanged('PATCH', '/api/v1/settings', { conversationRetentionDays: 'ninety' }, 'conversationRetentionDays', '/api/v1/settings');
  await refusedAndUnchanged('PATCH', '/api/v1/settings', { name: 'Renamed', colour: 'red' }, 'colour', '/api/v1/settings');
  assert.is((await get('/api/v1/settings')).name, 'Acme');
});

test('a token with an unknown scope is not created', async () => {
  await createToken(s, owner, ['bots:read']);
  await refusedAndUnchanged('POST', '/api/v1/tokens', { name: 'bad', scopes: ['bots:read', 'bots:everything'] }, 'scopes.1', '/api/v1/tokens');
  await refusedAndUnchanged('POST', '/api/v1/tokens', { name: 'bad', scopes: 'bots:read' }, 'scopes', '/api/v1/tokens');
  await refusedAndUnchanged('POST', '/api/v1/tokens', { scopes: ['bots:read'] }, 'name', '/api/v1/tokens');
});

test('an invitation with a bad e-mail or role is not created', async () => {
  await s.request('POST', '/api/v1/members/invite', { body: { email: 'open@example.com', role: 'agent' }, headers: owner.headers });
  await refusedAndUnchanged('POST', '/api/v1/members/invite', { email: 'not an e-mail', role: 'agent' }, 'email', '/api/v1/members');
  await refusedAndUnchanged('POST', '/api/v1/members/invite', { email: 'new@example.com', role: 'boss' }, 'role', '/api/v1/members');
  await refusedAndUnchanged('POST', '/api/v1/members/invite', { role: 'agent' }, 'email', '/api/v1/members');
});

test('a role change to an unknown role leaves the member as they were', async () => {
  const agent = await addMember(s, owner, 'agent');
  await refusedAndUnchanged('PATCH', `/api/v1/members/${agent.userId}`, { role: 'superuser' }, 'role', '/api/v1/members');
  await refusedAndUnchanged('PATCH', `/api/v1/members/${agent.userId}`, {}, 'role', '/api/v1/members');
  const members = await get('/api/v1/members');
  assert.is(members.items.find((m: any) => m.id === agent.userId).role, 'agent');
});

test('an audit cursor that is not an earlier nextBefore is refused naming before', async () => {
  for (const before of ['garbage', 'aud_short', `bot_${'0'.repeat(26)}`]) {
    const r = await s.request('GET', `/api/v1/audit?before=${before}`, { headers: owner.headers });
    assert.is(r.status, 422, before);
    assert.is(r.body.error.code, 'invalid');
    assert.match(r.body.error.message, /^query\.before:/);
    assert.equal(r.body.error.details.map((d: any) => d.path), ['query.before']);
  }
  const page = await get('/api/v1/audit?limit=1');
  const next = await s.request('GET', `/api/v1/audit?limit=1&before=${page.nextBefore}`, { headers: owner.headers });
  assert.is(next.status, 200);
});

test.run();
