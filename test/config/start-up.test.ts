import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../..', import.meta.url).pathname;

/** Runs `node --import tsx src/main.ts` with `env` on top of PATH and HOME; resolves with its exit code and stderr. */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b) => { stderr += String(b); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`main.ts still running; stderr: ${stderr}`)); }, 30_000);
    child.on('error', reject);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stderr }); });
  });
}

test('a bad environment variable stops start-up with a message naming it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-config-'));
  try {
    const r = await runMain({ PORT: 'abc', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    assert.is.not(r.code, 0);
    assert.is.not(r.code, null);
    assert.match(r.stderr, /Invalid environment configuration/);
    assert.match(r.stderr, /^\s*PORT: /m);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack trace, just the message');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
