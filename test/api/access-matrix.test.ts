/**
 * Walks every operation of the spec table with every kind of caller: 401 without credentials, 403 forbidden
 * for a missing scope or a role too low, 403 csrf without the CSRF token. Refused calls use made-up ids (access
 * is decided before anything is looked up); permitted calls are real, valid calls (test/api/access-calls.ts)
 * and must answer their 2xx status. The one exception is POST /setup, which answers 409 on a set-up server.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OPERATIONS, type Operation } from '../../src/api/operations.js';
import { ROLES, roleRank, SCOPE_ROLES, SCOPES, type Role, type Scope } from '../../src/auth/roles.js';
import { closePool } from '../../workers/pool.js';
import { addMember, createToken, loginAs, setupOwner, type TestSession, type TestToken } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeRecords, validCalls, type Caller, type MakeCall, type Records } from './access-calls.js';

let s: TestServer;
let records: Records;
let calls: Record<string, MakeCall>;
const sessionOf = {} as Record<Role, TestSession>;
let allScopes: TestToken;
const onlyScope = {} as Record<Scope, TestToken>;
const allBut = {} as Record<Scope, TestToken>;
const ADMIN_COMPANION: Scope = 'privacy:write';

test.before(async () => {
  s = await startTestServer();
  sessionOf.owner = await setupOwner(s);
  for (const role of ['viewer', 'agent', 'admin'] as const) sessionOf[role] = await addMember(s, sessionOf.owner, role);
  allScopes = await createToken(s, sessionOf.owner, [...SCOPES]);
  for (const scope of SCOPES) {
    onlyScope[scope] = await createToken(s, sessionOf.owner, [scope]);
    allBut[scope] = await createToken(s, sessionOf.owner, SCOPES.filter((x) => x !== scope));
  }
  records = await makeRecords(s, sessionOf.owner);
  calls = validCalls(records);
});
test.after(async () => {
  await records?.close();
  await s.stop();
  await closePool();
});

const FAKE: Record<string, string> = { id: 'x_00000000000000000000000000', token: 'fake-invite-token', name: 'FAKE_SECRET', voiceId: 'voice_fake', version: '1' };
const pathOf = (op: Operation) => op.path.replace(/\{(\w+)\}/g, (_, k: string) => FAKE[k] ?? 'fake');
const changes = (op: Operation) => op.method !== 'GET';
const label = (op: Operation) => `${op.method} ${op.path}`;

/** A call with made-up ids and an empty body: enough to be refused. */
function call(op: Operation, headers: Record<string, string> = {}) {
  return s.request(op.method, pathOf(op), { headers, ...(changes(op) ? { body: {} } : {}) });
}

/** Makes the operation's valid call as `who` and checks it answers its 2xx status. */
async function succeeds(op: Operation, who: string, caller: Caller) {
  const make = calls[label(op)];
  assert.ok(make, `${label(op)}: no valid call in access-calls.ts`);
  const c = await make(caller);
  let r: { status: number; body: any };
  if (c.raw) {
    const res = await s.fetch(c.path, { method: op.method, headers: { ...caller.headers, 'content-type': c.raw.contentType }, body: c.raw.bytes });
    r = { status: res.status, body: await res.text() };
  } else {
    r = await s.request(op.method, c.path, { headers: caller.headers, ...(c.body !== undefined ? { body: c.body } : {}) });
  }
  assert.is(r.status, c.status, `${label(op)} as ${who}: expected ${c.status}, got ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
}

function refused(op: Operation, who: string, r: { status: number; body: any }, status: number, code: string) {
  assert.is(r.status, status, `${label(op)} as ${who}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
  assert.is(r.body?.error?.code, code, `${label(op)} as ${who}: code`);
}

/** The lowest session role an operation accepts (null: none needed). */
function minRole(op: Operation): Role | null {
  const a = op.access;
  if (a.kind === 'public' || a.kind === 'any') return null;
  if (a.kind === 'user') return a.role;
  return a.admin ? 'admin' : SCOPE_ROLES[a.scope];
}

test('the table has all 102 operations and a valid call for each', () => {
  assert.is(OPERATIONS.length, 102);
  assert.equal(OPERATIONS.map(label).filter((l) => !calls[l]), []);
  assert.is(Object.keys(calls).length, 102);
});

test('without credentials every operation but the public ones answers 401; public ones work', async () => {
  for (const op of OPERATIONS) {
    if (op.access.kind === 'public') await succeeds(op, 'nobody', { headers: {} });
    else refused(op, 'nobody', await call(op), 401, 'unauthorized');
  }
});

test('a token lacking the scope gets 403; session-only operations refuse every token', async () => {
  for (const op of OPERATIONS) {
    const a = op.access;
    if (a.kind === 'scope') refused(op, `token without ${a.scope}`, await call(op, allBut[a.scope].headers), 403, 'forbidden');
    else if (a.kind === 'user') refused(op, 'token with every scope', await call(op, allScopes.headers), 403, 'forbidden');
    else await succeeds(op, 'token', { headers: onlyScope['bots:read'].headers });
  }
});

test('a token with the scope succeeds; +admin operations also need an admin-level scope', async () => {
  for (const op of OPERATIONS) {
    const a = op.access;
    if (a.kind !== 'scope') continue;
    const only = onlyScope[a.scope];
    if (a.admin && SCOPE_ROLES[a.scope] !== 'admin') {
      refused(op, `token with only ${a.scope}`, await call(op, only.headers), 403, 'forbidden');
      const both = await createToken(s, sessionOf.owner, [a.scope, ADMIN_COMPANION]);
      await succeeds(op, `token with ${a.scope} and ${ADMIN_COMPANION}`, { headers: both.headers });
    } else {
      await succeeds(op, `token with ${a.scope}`, { headers: only.headers });
    }
  }
});

test('sessions of each role get 403 exactly where the role is too low, and succeed elsewhere', async () => {
  for (const op of OPERATIONS) {
    if (label(op) === 'DELETE /api/v1/workspace') continue; // the owner's call would delete it: last test
    const need = minRole(op);
    for (const role of ROLES) {
      // Signing out ends the session it is sent with, so it gets a session of its own.
      const who = label(op) === 'POST /api/v1/auth/logout' ? await loginAs(s, sessionOf[role].email) : sessionOf[role];
      if (need && roleRank(role) < roleRank(need)) refused(op, role, await call(op, who.headers), 403, 'forbidden');
      else await succeeds(op, role, { headers: who.headers, session: who });
    }
  }
});

test('state-changing session requests without X-CSRF-Token get 403 csrf', async () => {
  for (const op of OPERATIONS) {
    if (op.access.kind === 'public' || !changes(op)) continue;
    refused(op, 'owner without CSRF token', await call(op, { cookie: sessionOf.owner.cookie }), 403, 'csrf');
  }
});

test('deleting the workspace: 403 below owner, 204 for the owner', async () => {
  const op = OPERATIONS.find((o) => label(o) === 'DELETE /api/v1/workspace')!;
  for (const role of ['viewer', 'agent', 'admin'] as const) refused(op, role, await call(op, sessionOf[role].headers), 403, 'forbidden');
  await succeeds(op, 'owner', { headers: sessionOf.owner.headers, session: sessionOf.owner });
});

test.run();
