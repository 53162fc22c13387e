import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 40, item 10: inviting an address revealed that it has an account in another workspace (409 "someone
// with this e-mail already has an account"). The other workspace and its member are written to the store as the
// setup of that workspace wrote them.
let s: TestServer;
let owner: TestSession;
test.before(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
  const now = Date.now();
  await s.app.store.collection('users').insertOne({
    _id: 'usr_elsewhere', workspaceId: 'ws_elsewhere', email: 'elsewhere@example.com', name: 'Someone Elsewhere', role: 'owner',
    passwordHash: 'x', createdAt: now, presence: 'offline', presenceAt: now,
  } as never);
});
test.after(async () => { await s.stop(); });

const invite = (email: string) => s.request('POST', '/api/v1/members/invite', { body: { email, role: 'agent' }, headers: owner.headers });
const shape = (r: { status: number; body: any }) => ({ status: r.status, keys: Object.keys(r.body ?? {}).sort(), inviteKeys: Object.keys(r.body?.invite ?? {}).sort() });

test('inviting an address with an account in another workspace answers exactly as for an unknown address', async () => {
  const elsewhere = await invite('elsewhere@example.com');
  const nobody = await invite('nobody-yet@example.com');
  assert.is(nobody.status, 201);
  assert.equal(shape(elsewhere), shape(nobody), JSON.stringify(elsewhere.body));
});

test('a member of this workspace is still told apart: they are already here', async () => {
  const r = await invite(owner.email);
  assert.is(r.status, 409);
  assert.match(r.body.error.message, /already a member of this workspace/);
});

test.run();
