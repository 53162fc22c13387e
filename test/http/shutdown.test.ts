import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

/** Starts `src/main.ts` as a real process on a free port; resolves once it logs that it listens. */
function startProcess(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'test', SECRET_KEY: 'x'.repeat(40) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: any[] = [];
  let buf = '';
  const listening = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i); buf = buf.slice(i + 1);
        try { const o = JSON.parse(line); lines.push(o); if (o.msg === 'server listening') resolve(o.port); } catch { /* not JSON */ }
      }
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, listening, exited };
}

test('SIGTERM stops accepting, closes open sockets with 1001, drains and exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-shutdown-'));
  const p = startProcess(dataDir);
  try {
    const port = await p.listening;
    const setup = await fetch(`http://127.0.0.1:${port}/api/v1/setup`);
    assert.is(setup.status, 200);
    const started = Date.now();
    p.child.kill('SIGTERM');
    const code = await p.exited;
    assert.is(code, 0);
    assert.ok(Date.now() - started < 10_000, 'stops promptly');
    assert.ok(p.lines.some((l) => l.msg === 'shutting down'));
    assert.ok(p.lines.some((l) => l.msg === 'server stopped'), 'stores closed after draining');
    await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => assert.unreachable('no longer accepts connections'),
      () => undefined,
    );
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a live socket open at shutdown is closed with code 1001 (going away)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-shutdown-'));
  const p = startProcess(dataDir);
  try {
    const port = await p.listening;
    const r = await fetch(`http://127.0.0.1:${port}/api/v1/setup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', password: 'correct horse battery', name: 'Owner', workspaceName: 'Acme' }),
    });
    assert.is(r.status, 201, await r.clone().text());
    const cookie = r.headers.get('set-cookie')!.split(';')[0];
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/live`, { headers: { cookie } });
    await new Promise<void>((resolve, reject) => { ws.once('message', () => resolve()); ws.once('error', reject); });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    p.child.kill('SIGTERM');
    assert.is(await closed, 1001);
    assert.is(await p.exited, 0);
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
