import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config/index.js';
import { LOCK_FILE } from '../../src/config/data-dir-lock.js';
import { freePort } from '../helpers/ports.js';
import { startTestServer } from '../helpers/server.js';

const root = new URL('../..', import.meta.url).pathname;

/** Runs `src/main.ts` with `env` until it exits; resolves with its exit code and stderr. */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root, stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'silent', SECRET_KEY: 'x'.repeat(40), ...env },
    });
    let stderr = '';
    child.stderr.on('data', (b) => { stderr += String(b); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`main.ts still running (it should have refused the port); stderr: ${stderr}`)); }, 60_000);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stderr }); });
  });
}

test('a second server on a port in use fails to start, naming the port, and the first keeps every request', async () => {
  const first = await startTestServer({ env: { PORT: String(await freePort()) } });
  try {
    const err = await startTestServer({ env: { PORT: String(first.port) } }).then(
      async (second) => { await second.stop(); return null; },
      (e) => e,
    );
    assert.instance(err, ConfigError, 'the second server must not share the port');
    assert.match(err.message, `port ${first.port} (127.0.0.1:${first.port}) is already in use`);
    assert.match(err.message, 'set PORT to a free port');
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${first.url}/api/v1/setup`, { headers: { connection: 'close' } });
      assert.is(r.status, 200, 'each new connection reaches the first server');
    }
  } finally {
    await first.stop();
  }
});

test('npm start on a port in use exits 1 with the message and leaves its DATA_DIR unlocked', async () => {
  const first = await startTestServer({ env: { PORT: String(await freePort()) } });
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-port-'));
  try {
    const r = await runMain({ PORT: String(first.port), DATA_DIR: dataDir });
    assert.is(r.code, 1);
    assert.match(r.stderr, `port ${first.port} (127.0.0.1:${first.port}) is already in use, perhaps by another server started earlier. Stop that process, or set PORT to a free port.`);
    assert.not.match(r.stderr, /\n\s+at /, 'a message, not a stack trace');
    assert.not.ok(existsSync(join(dataDir, LOCK_FILE)), 'the failed start released the data folder');
  } finally {
    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
