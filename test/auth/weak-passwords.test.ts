import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../../src/cli/main.js';
import { passwordProblem } from '../../src/auth/password-policy.js';
import { DEFAULT_PASSWORD, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 40 item 7 (ASVS 5.0 V6.2): common, breached and whitespace-only passwords are refused wherever a
// password is set (setup, invitation, change, the reset command), with a message that says what to choose.

const WEAK = ['password', '12345678', '        ', 'Password2024!', 'qwertyuiop', 'iloveyou', 'aaaaaaaa', 'abcdefgh', '98765432', 'p@ssw0rd'];
const GOOD = [DEFAULT_PASSWORD, 'another password', 'a brand new secret', 'Tr0ub4dor&3x', 'violet-canoe-mirror'];
let s: TestServer;
let owner: TestSession;

test.before(async () => { s = await startTestServer(); });
test.after(async () => { await s.stop(); });

function assertRefused(r: { status: number; body: any }, field: RegExp, pw: string) {
  assert.is(r.status, 422, `${JSON.stringify(pw)}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.error.code, 'invalid');
  assert.match(r.body.error.message, field);
  assert.match(r.body.error.message, /choose a passphrase of three or four unrelated words/, 'says what to choose');
}

test('the policy: weak ones refused, ordinary passphrases and random ones allowed', () => {
  for (const pw of WEAK) assert.ok(passwordProblem(pw), `${JSON.stringify(pw)} is refused`);
  for (const pw of GOOD) assert.is(passwordProblem(pw), null, `${pw} is allowed`);
  assert.match(passwordProblem('         ')!, /only spaces/);
  assert.match(passwordProblem('password')!, /most common passwords/);
});

test('setup refuses a weak password and creates nothing; a passphrase works', async () => {
  for (const pw of ['password', '12345678', '        ']) {
    const r = await s.request('POST', '/api/v1/setup', { body: { email: 'owner@example.com', password: pw, name: 'Owner', workspaceName: 'Acme' } });
    assertRefused(r, /password/, pw);
  }
  owner = await setupOwner(s);
});

test('accepting an invitation refuses a weak password; the link still works afterwards', async () => {
  const inv = await s.request('POST', '/api/v1/members/invite', { body: { email: 'ann@example.com', role: 'agent' }, headers: owner.headers });
  const token = inv.body.link.split('/admin/#/invite/')[1];
  for (const pw of ['12345678', '        ']) assertRefused(await s.request('POST', `/api/v1/invites/${token}/accept`, { body: { name: 'Ann', password: pw } }), /password/, pw);
  assert.is((await s.request('POST', `/api/v1/invites/${token}/accept`, { body: { name: 'Ann', password: 'violet-canoe-mirror' } })).status, 201);
});

test('changing one\'s password refuses a weak new one and keeps the old', async () => {
  const r = await s.request('POST', '/api/v1/me/password', { body: { currentPassword: DEFAULT_PASSWORD, newPassword: 'Password1' }, headers: owner.headers });
  assertRefused(r, /newPassword/, 'Password1');
  assert.is((await s.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: DEFAULT_PASSWORD } })).status, 200);
});

test('service-chat reset-password refuses a weak --password and changes nothing', async () => {
  const err: string[] = [];
  const code = await runCli(['reset-password', '--email', owner.email, '--password', 'password', '--data-dir', s.dataDir], () => {}, (l) => err.push(l));
  assert.is.not(code, 0);
  assert.match(err.join('\n'), /--password is one of the most common passwords.*choose a passphrase/);
  assert.is((await s.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: DEFAULT_PASSWORD } })).status, 200);
});

test.run();
