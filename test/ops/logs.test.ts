/**
 * What the terminal shows: readable lines when stdout is a terminal, one JSON object a line otherwise (LOG_FORMAT
 * overrides), and a line at start when private-network access is on. The server is started as `npm start` does
 * (src/main.ts), on a pipe and under a real pseudo-terminal (`script`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { prettyLine } from '../../src/kernel/log-pretty.js';
import { until } from '../helpers/until.js';

const root = new URL('../..', import.meta.url).pathname;

test('a JSON log line reads as time, level, message and fields; an error shows its stack below', () => {
  const time = new Date(2026, 10, 28, 9, 5, 7, 42).getTime();
  assert.is(prettyLine(JSON.stringify({ level: 30, time, msg: 'admin panel: http://localhost:3000/admin/', url: 'http://localhost:3000/admin/' })),
    '09:05:07.042 INFO  admin panel: http://localhost:3000/admin/  url=http://localhost:3000/admin/');
  assert.is(prettyLine(JSON.stringify({ level: 40, time, worker: 2, msg: 'slow', ms: 1200, path: '/a b' })), '09:05:07.042 WARN  [worker 2] slow  ms=1200 path="/a b"');
  const withError = prettyLine(JSON.stringify({ level: 50, time, msg: 'turn failed', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:2)' } }));
  assert.is(withError, '09:05:07.042 ERROR turn failed\n    Error: boom\n        at x (y.ts:1:2)');
  assert.match(prettyLine(JSON.stringify({ level: 30, time, msg: 'hi' }), true), /\u001b\[32mINFO \u001b\[0m hi$/);
});

test('LOG_FORMAT takes json or pretty; anything else stops start-up naming the variable', () => {
  assert.is(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
  assert.is(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
  try {
    loadConfig({ LOG_FORMAT: 'xml' });
    assert.unreachable('accepted');
  } catch (err) {
    assert.instance(err, ConfigError);
    assert.match((err as Error).message, /LOG_FORMAT: must be json \(one JSON object a line\) or pretty/);
  }
});

interface Run { out: () => string; stop(): Promise<void> }

/** Starts src/main.ts (optionally under a pseudo-terminal) and waits until it printed the admin panel's address; `out` is its stdout. */
async function start(env: Record<string, string>, tty: boolean): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-logs-'));
  const full = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', ...env };
  const cmd = [process.execPath, '--import', 'tsx', 'src/main.ts'];
  const child: ChildProcess = tty
    ? spawn('script', ['-qefc', cmd.map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd: root, env: full, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    : spawn(cmd[0], cmd.slice(1), { cwd: root, env: full, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b) => { out += String(b); });
  child.stderr!.on('data', (b) => { err += String(b); });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  // Waits for the line, or for the server to exit without it.
  const seen = await until(() => (out.includes('admin panel') ? 'line' : child.exitCode !== null ? 'exited' : null), { timeout: 30_000, interval: 50, message: 'the admin panel line' })
    .catch((e: Error) => e.message);
  if (seen !== 'line') {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
    throw new Error(`no admin panel line (${seen}); output:\n${out}\n${err}`);
  }
  return {
    out: () => out,
    async stop() {
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

test('on a pipe the lines are JSON, and nothing mentions private-network access while it is off', async () => {
  const run = await start({}, false);
  await run.stop();
  const lines = run.out().split('\n').filter((l) => l.trim());
  assert.ok(lines.length >= 1);
  for (const l of lines) assert.ok(JSON.parse(l).level, l);
  assert.not.match(run.out(), /private-network/);
});

test('at a terminal the lines are readable, and start-up says private-network access is on and how to turn it off', async () => {
  const run = await start({ ALLOW_PRIVATE_NETWORK: 'true' }, true);
  await run.stop();
  const out = run.out().replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');
  assert.not.match(out, /\{"level"/, out);
  assert.match(out, /^\d\d:\d\d:\d\d\.\d{3} INFO {2}admin panel: http:\/\/\S+\/admin\/ {2}url=/m);
  assert.match(out, /^\d\d:\d\d:\d\d\.\d{3} WARN {2}private-network access is on \(ALLOW_PRIVATE_NETWORK=true\): .* remove ALLOW_PRIVATE_NETWORK \(or set it to false\) and restart\.$/m);
});

test('PORT=0: the start-up link names the port the server listens on, and the panel answers there', async () => {
  const run = await start({}, false);
  try {
    const lines = run.out().split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const { port } = lines.find((l) => l.msg === 'server listening');
    const panel = lines.find((l) => String(l.msg).startsWith('admin panel'));
    assert.ok(port > 0, `listening on ${port}`);
    assert.is(panel.url, `http://localhost:${port}/admin/`);
    assert.is(panel.msg, `admin panel: http://localhost:${port}/admin/`);
    assert.is((await fetch(`http://127.0.0.1:${port}/admin/`)).status, 200);
  } finally { await run.stop(); }
});

test('LOG_FORMAT=json keeps JSON at a terminal (for a log collector reading a terminal)', async () => {
  const run = await start({ LOG_FORMAT: 'json' }, true);
  await run.stop();
  const lines = run.out().replace(/\r/g, '').split('\n').filter((l) => l.trim());
  const panel = lines.find((l) => l.includes('admin panel'))!;
  assert.is(JSON.parse(panel).level, 30);
});

test.run();
