import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { freePort } from '../helpers/ports.js';
import { startRedis } from '../scale/world.js';
import { until } from '../helpers/until.js';

// Issue 26: /readyz says whether this process can serve; it flips on SIGTERM (while the server still answers
// during SHUTDOWN_DELAY_MS, then exits 0) and when the store is lost.

test('a started server is ready, and a check added by another part counts', async () => {
  const s = await startTestServer();
  try {
    const ok = await s.request('GET', '/readyz');
    assert.is(ok.status, 200);
    assert.equal(ok.body.ready, true);
    assert.equal(Object.keys(ok.body.checks).sort(), ['disk', 'draining', 'startup', 'store']);
    s.services.readiness.add('coordination', () => 'Redis at redis://127.0.0.1:1 does not answer');
    const bad = await s.request('GET', '/readyz');
    assert.is(bad.status, 503);
    assert.equal(bad.body.checks.coordination, { ok: false, problem: 'Redis at redis://127.0.0.1:1 does not answer' });
    assert.match(bad.body.error.message, /coordination: Redis/);
  } finally {
    await s.stop();
  }
});

test('with METRICS_PORT, metrics and readiness are served on that port without a token, and the main port says where', async () => {
  const port = await freePort();
  const s = await startTestServer({ env: { METRICS_PORT: String(port) } });
  try {
    assert.is(s.metricsPort, port);
    const m = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.is(m.status, 200);
    assert.match(await m.text(), /servicechat_ready 1/);
    assert.is((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    const other = await fetch(`http://127.0.0.1:${port}/api/v1/setup`);
    assert.is(other.status, 404);
    const main = await s.request('GET', '/metrics');
    assert.is(main.status, 404);
    assert.match(main.body.error.message, new RegExp(`own port \\(${port}\\)`));
  } finally {
    await s.stop();
  }
  const off = await startTestServer();
  try {
    const res = await off.request('GET', '/metrics');
    assert.is(res.status, 404);
    assert.match(res.body.error.message, /metrics are off: set METRICS_TOKEN .* or METRICS_PORT/);
  } finally {
    await off.stop();
  }
});

test('a lost store makes the server not ready, naming the store', async () => {
  const s = await startTestServer();
  await s.app.store.close();
  const res = await s.request('GET', '/readyz');
  assert.is(res.status, 503);
  assert.is(res.body.checks.store.ok, false);
  assert.ok(res.body.checks.store.problem.length > 0);
  assert.is(res.body.checks.draining.ok, true);
  await s.stop().catch(() => { /* the store is already closed */ });
});

test('scaled out, losing the coordination server is reported while the process stays ready (it can still serve)', async () => {
  let redis = await startRedis();
  const s = await startTestServer({ env: { REDIS_URL: redis.url } });
  try {
    const ok = await s.request('GET', '/readyz');
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.checks.coordination, { ok: true });
    await redis.stop();
    let res = await until(() => s.request('GET', '/readyz'), { ok: (r) => !r.body.checks.coordination.ok, timeout: 10_000, interval: 100, message: '/readyz to report coordination down' });
    assert.is(res.body.checks.coordination.ok, false);
    assert.match(res.body.checks.coordination.problem, /REDIS_URL/);
    assert.is(res.status, 200, 'still ready: a balancer keeps sending it traffic');
    assert.is(res.body.ready, true);
    redis = await startRedis(redis.port);
    res = await until(() => s.request('GET', '/readyz'), { ok: (r) => r.body.checks.coordination.ok, timeout: 15_000, interval: 100, message: '/readyz to report coordination fine again' });
    assert.equal(res.body.checks.coordination, { ok: true }, 'reported fine again once Redis is back');
  } finally {
    await s.stop().catch(() => {});
    await redis.stop();
  }
});

test('on SIGTERM the process stops being ready at once, still answers during the delay, and exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-ready-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'test', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789', SHUTDOWN_DELAY_MS: '1500' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no start within 20 s: ${out}`)), 20_000);
      child.stdout.on('data', (c) => {
        out += c;
        const m = /"port":(\d+)[^\n]*server listening/.exec(out);
        if (m) { clearTimeout(timer); resolve(Number(m[1])); }
      });
    });
    const base = `http://127.0.0.1:${port}`;
    assert.is((await fetch(`${base}/readyz`)).status, 200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const t0 = Date.now();
    child.kill('SIGTERM');
    // Within the 1.2 s delay before the server stops listening.
    const draining: any = await until(async () => { const r = await fetch(`${base}/readyz`); return r.status === 503 ? r.json() : null; }, { timeout: Math.max(0, t0 + 1200 - Date.now()), interval: 20, message: 'readyz to answer 503 during the delay' });
    assert.is(draining.checks.draining.ok, false);
    assert.is((await fetch(`${base}/healthz`)).status, 200, 'requests are still served during the delay');
    const code = await exited;
    assert.is(code, 0);
    const took = Date.now() - t0;
    assert.ok(took >= 1400 && took < 15_000, `exited after ${took} ms`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
