import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbeddedStore } from '../../src/store/embedded.js';

// Issue 40, item 10: `service-chat reset-password` run without access to the data folder printed a stack (and
// could hang). The built command (as installed) runs as a user that may not read the folder: as root, that is
// nobody (setpriv); as anyone else, the folder's modes shut the user out.
const cliMain = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'sc-noaccess-'));
const asRoot = process.getuid?.() === 0;

test.before(async () => {
  const store = openEmbeddedStore(dataDir);
  await store.collection('users').count({}, { crossWorkspace: true });
  await store.close();
});
test.after(() => { chmodSync(dataDir, 0o700); rmSync(dataDir, { recursive: true, force: true }); });

function runAsOutsider(folderMode: number, dbMode: number) {
  chmodSync(join(dataDir, 'service.db'), dbMode);
  chmodSync(dataDir, folderMode);
  const args = [cliMain, 'reset-password', '--email', 'owner@example.com', '--data-dir', dataDir];
  const r = asRoot
    ? spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args], { encoding: 'utf8', timeout: 30_000, cwd: tmpdir() })
    : spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30_000 });
  chmodSync(dataDir, 0o700);
  return r;
}

for (const [what, folder, db] of [['a folder it may read but not write', 0o755, 0o644], ['a database it may not read', 0o755, asRoot ? 0o600 : 0o000], ['a folder it may not enter', asRoot ? 0o700 : 0o000, 0o600]] as const) {
  test(`reset-password on ${what}: one line saying what to do, exit 1, no stack, no hang`, () => {
    const r = runAsOutsider(folder, db);
    assert.is(r.error, undefined, `it ended: ${r.error}`);
    assert.is(r.status, 1, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.is(lines.length, 1, r.stderr);
    assert.match(lines[0], /^reset-password: no permission to read and write .*sc-noaccess-.*: run the command as the user the server runs as/);
    assert.not.match(r.stderr, /\n\s+at /);
  });
}

test.run();
