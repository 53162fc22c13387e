import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { setupOwner } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 40 item 8: the data folder is the server's alone: folders 700, databases and files 600, and
// `service-chat check` warns about anything looser, with the command that fixes it.

const parent = mkdtempSync(join(tmpdir(), 'sc-modes-'));
const dataDir = join(parent, 'data');
let s: TestServer;

test.before(async () => {
  // Started the way an operator starts it: the usual umask 022, a DATA_DIR that does not exist yet.
  process.umask(0o022);
  s = await startTestServer({ dataDir, env: { SECRET_KEY: '' } });
  await setupOwner(s); // writes: an account, a workspace, a session
});
test.after(async () => {
  await s.stop({ keepData: true }).catch(() => {});
  rmSync(parent, { recursive: true, force: true });
});

function walk(dir: string, into: Array<{ path: string; mode: number; isDir: boolean }> = []) {
  const st = statSync(dir);
  into.push({ path: dir, mode: st.mode & 0o777, isDir: st.isDirectory() });
  if (st.isDirectory()) for (const name of readdirSync(dir)) walk(join(dir, name), into);
  return into;
}

async function check() {
  const out: string[] = [];
  await runCli(['check', '--data-dir', dataDir], (l) => out.push(l), (l) => out.push(l));
  return out.join('\n');
}

test('every folder the server made is 700 and every file 600, databases and their journals included', () => {
  const all = walk(dataDir);
  assert.ok(all.some((e) => e.path.endsWith('.db')), `databases are there: ${all.map((e) => e.path).join(', ')}`);
  for (const e of all) assert.is(e.mode, e.isDir ? 0o700 : 0o600, `${e.path} is ${e.mode.toString(8)}`);
});

test('check says the folder is private; after a chmod it warns, naming the items and the fix', async () => {
  assert.match(await check(), /ok +only this user can read the data folder/);
  chmodSync(dataDir, 0o755);
  const db = readdirSync(dataDir).find((n) => n.endsWith('.db'))!;
  chmodSync(join(dataDir, db), 0o644);
  const out = await check();
  assert.match(out, /warn +2 item\(s\) in the data folder can be read by other local users/);
  assert.ok(out.includes(`${dataDir} (755)`) && out.includes(`${db} (644)`), out);
  assert.ok(out.includes(`chmod -R go-rwx ${dataDir}`), out);
});

test.run();
