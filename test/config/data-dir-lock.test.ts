import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config/index.js';
import { LOCK_FILE, lockDataDir, lockHolderAlive } from '../../src/config/data-dir-lock.js';
import { startTestServer } from '../helpers/server.js';

const root = new URL('../..', import.meta.url).pathname;

/** Starts `src/main.ts` with `env`; `listening` resolves with the port once it says so, `exited` with code and stderr. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'test', SECRET_KEY: 'x'.repeat(40), ...env },
  });
  let stdout = '', stderr = '';
  child.stderr.on('data', (b) => { stderr += String(b); });
  const listening = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (b) => {
      stdout += String(b);
      const m = /"port":(\d+)[^\n]*"msg":"server listening"/.exec(stdout);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  listening.catch(() => { /* awaited only by the tests that expect it */ });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  return { child, listening, exited };
}

/**
 * The pid of no process: one above the kernel's largest (a pid of an ended process can be reused at once on a busy
 * machine, which made the lock look held).
 */
function deadPid(): number {
  try { return Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1; } catch { return spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid!; }
}

test('a second server process on the same DATA_DIR stops with a message naming the folder and the running one', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-lock-'));
  const first = startMain({ PORT: '0', DATA_DIR: dataDir });
  try {
    const port = await first.listening;
    const second = startMain({ PORT: '0', DATA_DIR: dataDir });
    const { code, stderr } = await second.exited;
    assert.is(code, 1);
    assert.ok(stderr.includes(`DATA_DIR ${dataDir} is in use by another server (process ${first.child.pid},`), stderr);
    assert.match(stderr, /stop the other one first, or give this one its own DATA_DIR/);
    assert.not.match(stderr, /\n\s+at /, 'a message, not a stack trace');
    const health = await fetch(`http://127.0.0.1:${port}/api/v1/setup`);
    assert.is(health.status, 200, 'the first server still serves');
    assert.is(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid, first.child.pid, 'and still holds the lock');
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a lock left by a process that has died is taken over, and released when the server stops', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-lock-'));
  const pid = deadPid();
  writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid, host: (await import('node:os')).hostname(), startedAt: '2020-01-01T00:00:00.000Z', procStart: null }));
  const server = await startTestServer({ dataDir });
  try {
    assert.is(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid, process.pid);
    assert.is((await server.request('GET', '/api/v1/setup')).status, 200);
  } finally {
    await server.stop();
  }
  assert.not.ok(existsSync(join(dataDir, LOCK_FILE)), 'a clean stop removes the lock');
  rmSync(dataDir, { recursive: true, force: true });
});

test('a second server in the same process on the same DATA_DIR is refused, and the first keeps serving', async () => {
  const first = await startTestServer();
  try {
    const err = await startTestServer({ dataDir: first.dataDir }).then(() => null, (e) => e);
    assert.instance(err, ConfigError);
    assert.match(err.message, first.dataDir);
    assert.is((await first.request('GET', '/api/v1/setup')).status, 200);
    assert.ok(existsSync(join(first.dataDir, LOCK_FILE)), 'the refused start left the first server its lock');
  } finally {
    await first.stop();
  }
});

test('a lock written on another host is not taken over: the message says to delete it if no server runs there', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-lock-'));
  try {
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, JSON.stringify({ pid: 4242, host: 'elsewhere.example', startedAt: '2020-01-01T00:00:00.000Z', procStart: null }));
    const err = (() => { try { lockDataDir(dataDir); return null; } catch (e) { return e as Error; } })();
    assert.instance(err, ConfigError);
    assert.match(err!.message, 'process 4242 on host elsewhere.example');
    assert.match(err!.message, `If no server runs there any more, delete ${file}.`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('an unreadable lock (a crash while it was written) is taken over; a lock released twice stays released', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-lock-'));
  try {
    writeFileSync(join(dataDir, LOCK_FILE), '');
    const lock = lockDataDir(dataDir);
    assert.is(JSON.parse(readFileSync(lock.file, 'utf8')).pid, process.pid);
    lock.release();
    lock.release();
    assert.not.ok(existsSync(lock.file));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a DATA_DIR the server cannot write is refused with a message saying what to change', () => {
  const parent = mkdtempSync(join(tmpdir(), 'sc-lock-'));
  const dataDir = join(parent, 'data');
  try {
    chmodSync(parent, 0o555);
    // root writes anywhere, so under root the check runs in a child process as "nobody"
    const script = `const { lockDataDir } = await import(${JSON.stringify(join(root, 'src/config/data-dir-lock.ts'))});
      try { lockDataDir(${JSON.stringify(dataDir)}); console.log('locked'); } catch (e) { console.log(e.constructor.name + ': ' + e.message); }`;
    const asRoot = process.getuid?.() === 0;
    const out = asRoot
      ? spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: root, uid: 65534, gid: 65534, encoding: 'utf8', env: { PATH: process.env.PATH } }).stdout
      : (() => { try { lockDataDir(dataDir); return 'locked'; } catch (e) { return `${(e as Error).constructor.name}: ${(e as Error).message}`; } })();
    assert.match(out, `ConfigError: DATA_DIR ${dataDir} cannot be written (EACCES): give the server's user write access to it, or set DATA_DIR`);
  } finally {
    chmodSync(parent, 0o700);
    rmSync(parent, { recursive: true, force: true });
  }
});

test('a running process whose start time differs from the lock\'s is a reused pid, not the owner', () => {
  assert.ok(lockHolderAlive({ pid: process.pid, procStart: null }));
  assert.not.ok(lockHolderAlive({ pid: deadPid(), procStart: null }));
  if (existsSync('/proc/self/stat')) assert.not.ok(lockHolderAlive({ pid: process.pid, procStart: '1' }));
});

test.run();
