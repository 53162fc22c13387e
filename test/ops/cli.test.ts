import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { createToken, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// Issue 26: every command of the operator's command line on a real data folder, beside a running server:
// accounts, password reset followed by a real sign-in, a one-time sign-in link, tokens, config, check, a
// backup taken while the server writes, and a restore.

const require = createRequire(import.meta.url);
let server: TestServer;
let owner: TestSession;
let dataDir: string;
const scratch = mkdtempSync(join(tmpdir(), 'sc-cli-'));

async function cli(...args: string[]) {
  const out: string[] = [], err: string[] = [];
  const code = await runCli([...args, '--data-dir', dataDir], (l) => out.push(l), (l) => err.push(l));
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test.before(async () => {
  server = await startTestServer();
  dataDir = server.dataDir;
  owner = await setupOwner(server);
});

test.after(async () => {
  await server.stop().catch(() => {});
  rmSync(scratch, { recursive: true, force: true });
});

test('--help works on every command, and wrong usage exits 2 naming the problem', async () => {
  for (const c of ['accounts', 'reset-password', 'signin-link', 'tokens', 'config', 'check', 'backup', 'restore']) {
    const r = await cli(c, '--help');
    assert.is(r.code, 0, c);
    assert.match(r.out, new RegExp(`service-chat ${c}`));
  }
  assert.is((await runCli(['frobnicate'], () => {}, () => {})), 2);
  const bad = await cli('reset-password');
  assert.is(bad.code, 2);
  assert.match(bad.err, /needs --email/);
});

test('accounts lists the owner', async () => {
  const r = await cli('accounts', '--json');
  assert.is(r.code, 0, r.err);
  const list = JSON.parse(r.out);
  assert.equal(list.map((a: any) => [a.email, a.role]), [['owner@example.com', 'owner']]);
});

test('a password reset lets the owner sign in with the new password only, and ends old sessions', async () => {
  const unknown = await cli('reset-password', '--email', 'nobody@example.com');
  assert.is(unknown.code, 1);
  assert.match(unknown.err, /no account with the e-mail nobody@example.com/);
  const r = await cli('reset-password', '--email', 'Owner@Example.com');
  assert.is(r.code, 0, r.err);
  const password = /new password: (\S+)/.exec(r.out)![1];
  assert.is((await server.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: owner.password } })).status, 401);
  const login = await server.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password } });
  assert.is(login.status, 200);
  // The server's credential cache forgets a changed credential within CREDENTIAL_TTL_MS (2 s).
  await until(async () => (await server.request('GET', '/api/v1/me', { headers: owner.headers })).status === 401, { timeout: 4000, interval: 100, message: 'the old credential to be refused' });
  const chosen = await cli('reset-password', '--email', 'owner@example.com', '--password', 'a-new-long-password');
  assert.is(chosen.code, 0);
  assert.is((await server.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: 'a-new-long-password' } })).status, 200);
});

test('a one-time sign-in link signs in once', async () => {
  const r = await cli('signin-link', '--email', 'owner@example.com', '--minutes', '5');
  assert.is(r.code, 0, r.err);
  const url = new URL(r.out.split('\n')[0]);
  const first = await server.fetch(url.pathname + url.search, { redirect: 'manual' });
  assert.is(first.status, 302);
  assert.is(first.headers.get('location'), '/admin');
  const cookie = first.headers.get('set-cookie')!.split(';')[0];
  const me = await server.request('GET', '/api/v1/me', { headers: { cookie } });
  assert.is(me.status, 200);
  assert.is(me.body.user.email, 'owner@example.com');
  const again = await server.request('GET', url.pathname + url.search);
  assert.is(again.status, 404);
  assert.match(again.body.error.message, /used or expired/);
});

test('tokens are listed without their values and a revoked one is refused', async () => {
  const session = await server.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: 'a-new-long-password' } });
  const admin = { ...owner, headers: { cookie: session.headers.get('set-cookie')!.split(';')[0], 'x-csrf-token': session.body.csrfToken } };
  const tok = await createToken(server, admin as TestSession, ['bots:read'], { name: 'ci deploy' });
  const list = await cli('tokens', 'list', '--json');
  assert.is(list.code, 0, list.err);
  assert.ok(JSON.parse(list.out).some((t: any) => t.id === tok.id && t.name === 'ci deploy'));
  assert.not.match(list.out, new RegExp(tok.value));
  assert.is((await server.request('GET', '/api/v1/bots', { headers: tok.headers })).status, 200);
  const rev = await cli('tokens', 'revoke', tok.id);
  assert.is(rev.code, 0, rev.err);
  await until(async () => (await server.request('GET', '/api/v1/bots', { headers: tok.headers })).status === 401, { timeout: 4000, interval: 100, message: 'the old credential to be refused' });
  assert.is((await cli('tokens', 'revoke', tok.id)).code, 1);
});

test('config masks secrets', async () => {
  process.env.METRICS_TOKEN = 'metrics-secret-value-123456';
  try {
    const r = await cli('config');
    assert.is(r.code, 0, r.err);
    const c = JSON.parse(r.out);
    assert.is(c.dataDir, dataDir);
    assert.is(c.metricsToken, '****3456');
    assert.not.match(r.out, /metrics-secret-value/);
  } finally {
    delete process.env.METRICS_TOKEN;
  }
});

test('check reports a healthy folder with its running server', async () => {
  const r = await cli('check');
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /a server runs on it \(pid \d+/);
  assert.match(r.out, /service\.db \(\d+ KB\) integrity: ok/);
});

test('a backup taken while the server writes is consistent, and restore brings it back', async () => {
  const notes = server.app.store.collection<any>('ops_notes');
  let written = 0, writing = true;
  const writer = (async () => { while (writing) { await notes.insertOne({ _id: `note_${written}`, workspaceId: owner.workspaceId, n: written }); written++; } })();
  await until(() => written >= 20, { message: 'the writer under way (20 notes written)' });
  const out = join(scratch, 'backup-1');
  const b = await cli('backup', '--out', out);
  const atEnd = written;
  writing = false;
  await writer;
  assert.is(b.code, 0, b.err);
  assert.match(b.out, /backed up service\.db/);
  const Database = require('better-sqlite3');
  const db = new Database(join(out, 'service.db'), { readonly: true });
  assert.is(db.pragma('integrity_check', { simple: true }), 'ok');
  const inBackup = (db.prepare("SELECT count(*) AS n FROM c_ops_notes").get() as { n: number }).n;
  db.close();
  assert.ok(inBackup > 0 && inBackup <= atEnd, `${inBackup} of ${atEnd} notes`);
  assert.is((await cli('backup', '--out', out)).code, 1, 'a non-empty folder is refused');

  const refused = await cli('restore', '--from', out);
  assert.is(refused.code, 1);
  assert.match(refused.err, /stop the server before restoring/);

  await server.stop({ keepData: true });
  const r = await cli('restore', '--from', out);
  assert.is(r.code, 0, r.err);
  assert.match(r.out, /kept the current .*before-restore-/);
  server = await startTestServer({ dataDir });
  assert.is(await server.app.store.collection('ops_notes').count({ workspaceId: owner.workspaceId }), inBackup);
  assert.is((await server.request('POST', '/api/v1/auth/login', { body: { email: 'owner@example.com', password: 'a-new-long-password' } })).status, 200);
});

test.run();
