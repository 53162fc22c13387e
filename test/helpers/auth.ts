/**
 * Sign-in helpers for tests of any area. Typical use:
 *
 *   const s = await startTestServer();
 *   const owner = await setupOwner(s);                       // first owner + workspace, signed in
 *   await s.request('POST', '/api/v1/bots', { body, headers: owner.headers });  // cookie + X-CSRF-Token
 *   const agent = await addMember(s, owner, 'agent');         // invited, accepted, signed in
 *   const token = await createToken(s, owner, ['bots:read']); // API token
 *   await s.request('GET', '/api/v1/bots', { headers: token.headers });
 */
import type { Role, Scope } from '../../src/auth/roles.js';
import type { TestServer } from './server.js';

/** A signed-in person. `headers` carry the session cookie and the CSRF token, ready for `server.request`. */
export interface TestSession {
  cookie: string;
  csrf: string;
  workspaceId: string;
  userId: string;
  email: string;
  password: string;
  role: Role;
  headers: Record<string, string>;
}

/** An API token. `headers` carry `Authorization: Bearer <value>`. */
export interface TestToken {
  id: string;
  value: string;
  headers: Record<string, string>;
}

export const DEFAULT_PASSWORD = 'correct horse battery staple';
let counter = 0;

function fail(what: string, r: { status: number; body: unknown }): never {
  throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
}

function sessionFrom(r: { headers: Headers; body: any }, email: string, password: string): TestSession {
  const setCookie = r.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0];
  const csrf = r.body.csrfToken as string;
  return {
    cookie, csrf, email, password, role: r.body.user.role, workspaceId: r.body.workspace.id, userId: r.body.user.id,
    headers: { cookie, 'x-csrf-token': csrf },
  };
}

/** Runs first-run setup (POST /setup) and returns the owner's session. Call once per server. */
export async function setupOwner(server: TestServer, opts: { email?: string; password?: string; name?: string; workspaceName?: string } = {}): Promise<TestSession> {
  const email = opts.email ?? 'owner@example.com';
  const password = opts.password ?? DEFAULT_PASSWORD;
  const r = await server.request('POST', '/api/v1/setup', {
    body: { email, password, name: opts.name ?? 'Olivia Owner', workspaceName: opts.workspaceName ?? 'Test workspace' },
  });
  if (r.status !== 201) fail('POST /setup', r);
  return sessionFrom(r, email, password);
}

/** Signs in with e-mail and password (POST /auth/login): a new session each time. */
export async function loginAs(server: TestServer, email: string, password = DEFAULT_PASSWORD): Promise<TestSession> {
  const r = await server.request('POST', '/api/v1/auth/login', { body: { email, password } });
  if (r.status !== 200) fail('POST /auth/login', r);
  return sessionFrom(r, email, password);
}

/** Creates an API token with these scopes as `admin` (an admin or owner session). */
export async function createToken(server: TestServer, admin: TestSession, scopes: Scope[], opts: { name?: string; expiresAt?: number } = {}): Promise<TestToken> {
  const r = await server.request('POST', '/api/v1/tokens', {
    body: { name: opts.name ?? `test token ${++counter}`, scopes, ...(opts.expiresAt !== undefined ? { expiresAt: opts.expiresAt } : {}) },
    headers: admin.headers,
  });
  if (r.status !== 201) fail('POST /tokens', r);
  return { id: r.body.token.id, value: r.body.value, headers: { authorization: `Bearer ${r.body.value}` } };
}

/** Invites a new person with `role` (as `admin`), accepts the invitation and returns their session. */
export async function addMember(server: TestServer, admin: TestSession, role: Role, opts: { email?: string; name?: string; password?: string } = {}): Promise<TestSession> {
  const email = opts.email ?? `${role}-${++counter}@example.com`;
  const password = opts.password ?? DEFAULT_PASSWORD;
  const inv = await server.request('POST', '/api/v1/members/invite', { body: { email, role }, headers: admin.headers });
  if (inv.status !== 201) fail('POST /members/invite', inv);
  const token = String(inv.body.link).split('/invite/')[1];
  const r = await server.request('POST', `/api/v1/invites/${token}/accept`, { body: { name: opts.name ?? `Test ${role}`, password } });
  if (r.status !== 201) fail('POST /invites/{token}/accept', r);
  return sessionFrom(r, email, password);
}
