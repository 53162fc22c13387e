/**
 * A person's open live sockets end with their session: signing out, a password change (the other sessions),
 * removal from the workspace and deleting the workspace close them with 4401; a role change closes them with
 * 4403 so the client reconnects with its new rights. A closed socket receives no further events.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LIVE_CLOSE_ROLE_CHANGED, LIVE_CLOSE_SESSION_ENDED } from '../../src/team/live-hub.js';
import { addMember, DEFAULT_PASSWORD, loginAs, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connect, type FrameClient } from '../team/helpers.js';

let s: TestServer;
let owner: TestSession;
const opened: FrameClient[] = [];

test.before.each(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
});
test.after.each(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  await s.stop();
});

async function live(who: TestSession): Promise<FrameClient> {
  const c = await connect(`${s.url.replace('http', 'ws')}/api/v1/live`, { cookie: who.cookie });
  opened.push(c);
  await c.event('hello');
  return c;
}

function closedWith(c: FrameClient, timeoutMs = 5000): Promise<{ code: number; reason: string }> {
  if (c.closed) return Promise.resolve(c.closed);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('socket still open')), timeoutMs);
    c.ws.once('close', (code, reason) => { clearTimeout(t); resolve({ code, reason: String(reason) }); });
  });
}

/** Sends a presence change as `who` and waits until `watcher` (still open) has seen it. */
async function presenceEvent(who: TestSession, watcher: FrameClient, presence: 'away' | 'online') {
  const r = await s.request('PUT', '/api/v1/me/presence', { body: { presence }, headers: who.headers });
  assert.is(r.status, 200);
  await watcher.event('presence.changed', (d) => d.userId === who.userId && d.presence === presence);
}

const liveEvents = (c: FrameClient) => c.frames.filter((f) => f.type !== 'hello');

test('signing out closes the sockets of that session with 4401 and leaves other sessions open', async () => {
  const other = await loginAs(s, owner.email);
  const mine = await live(owner);
  const theirs = await live(other);
  assert.is((await s.request('POST', '/api/v1/auth/logout', { body: {}, headers: owner.headers })).status, 204);
  const closed = await closedWith(mine);
  assert.is(closed.code, LIVE_CLOSE_SESSION_ENDED);
  assert.is(closed.reason, 'signed out');
  const seen = liveEvents(mine).length;
  await presenceEvent(other, theirs, 'away');
  assert.is(theirs.closed, null);
  assert.is(liveEvents(mine).length, seen);
});

test('a password change closes the sockets of the other sessions and keeps the one that changed it', async () => {
  const other = await loginAs(s, owner.email);
  const changer = await live(owner);
  const elsewhere = await live(other);
  const r = await s.request('POST', '/api/v1/me/password', {
    body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'a brand new passphrase' }, headers: owner.headers,
  });
  assert.is(r.status, 204);
  assert.is((await closedWith(elsewhere)).code, LIVE_CLOSE_SESSION_ENDED);
  await presenceEvent(owner, changer, 'away');
  assert.is(changer.closed, null);
});

test('removing a member closes their sockets, they receive no further events and cannot reconnect', async () => {
  const agent = await addMember(s, owner, 'agent');
  const ownerSocket = await live(owner);
  const agentSocket = await live(agent);
  assert.is((await s.request('DELETE', `/api/v1/members/${agent.userId}`, { headers: owner.headers })).status, 204);
  const closed = await closedWith(agentSocket);
  assert.is(closed.code, LIVE_CLOSE_SESSION_ENDED);
  const seen = liveEvents(agentSocket).length;
  await presenceEvent(owner, ownerSocket, 'away');
  assert.is(liveEvents(agentSocket).length, seen);
  assert.is(ownerSocket.closed, null);
  try {
    await connect(`${s.url.replace('http', 'ws')}/api/v1/live`, { cookie: agent.cookie });
    assert.unreachable('the removed member reconnected');
  } catch (err: any) {
    assert.is(err.status, 401);
  }
});

test('a role change closes the sockets with 4403 and a reconnect carries the new role', async () => {
  const agent = await addMember(s, owner, 'agent');
  const ownerSocket = await live(owner);
  const agentSocket = await live(agent);
  const r = await s.request('PATCH', `/api/v1/members/${agent.userId}`, { body: { role: 'viewer' }, headers: owner.headers });
  assert.is(r.status, 200);
  const closed = await closedWith(agentSocket);
  assert.is(closed.code, LIVE_CLOSE_ROLE_CHANGED);
  assert.is(closed.reason, 'role changed to viewer');
  assert.is(ownerSocket.closed, null);
  const again = await live(agent);
  await presenceEvent(owner, again, 'away');
  assert.is(again.closed, null);
});

test('deleting the workspace closes every socket in it with 4401', async () => {
  const agent = await addMember(s, owner, 'agent');
  const ownerSocket = await live(owner);
  const agentSocket = await live(agent);
  assert.is((await s.request('DELETE', '/api/v1/workspace', { headers: owner.headers })).status, 204);
  assert.is((await closedWith(ownerSocket)).code, LIVE_CLOSE_SESSION_ENDED);
  assert.is((await closedWith(agentSocket)).code, LIVE_CLOSE_SESSION_ENDED);
});

test.run();
