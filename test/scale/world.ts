/**
 * A scale-out group on loopback: a real redis-server (own port, nothing saved), the fake OpenAI provider, and
 * `node src/main.ts` started with WORKERS=3 (its supervisor forks three server processes sharing PORT and the
 * embedded store). Each worker also listens on its own port (WORKER_PORTS), so a test can pick the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

/** Consecutive free ports (the workers' own ports are WORKER_PORTS + index). */
async function freeRange(n: number): Promise<number> {
  for (;;) {
    const base = 20000 + Math.floor(Math.random() * 30000);
    const ok = await Promise.all(Array.from({ length: n }, (_, i) => new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(base + i, '127.0.0.1', () => s.close(() => resolve(true)));
    })));
    if (ok.every(Boolean)) return base;
  }
}

export interface Redis { port: number; url: string; proc: ChildProcess; stop(): Promise<void> }

export async function startRedis(port?: number): Promise<Redis> {
  port ??= await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c) => { out += c; if (out.includes('Ready to accept connections')) resolve(); });
    proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  return {
    port, url: `redis://127.0.0.1:${port}`, proc,
    stop: () => new Promise((resolve) => { if (proc.exitCode !== null) return resolve(); proc.once('exit', () => resolve()); proc.kill('SIGKILL'); }),
  };
}

export interface Worker { index: number; pid: number; url: string }

export interface Group {
  supervisor: ChildProcess;
  port: number;
  dataDir: string;
  workers: Worker[];
  /** Log lines (parsed) from every process of the group. */
  logs: any[];
  /** Waits until worker `index` has (re)started and returns it. */
  waitWorker(index: number, notPid?: number, timeoutMs?: number): Promise<Worker>;
  stop(): Promise<void>;
}

export async function startGroup(env: Record<string, string>, n = 3): Promise<Group> {
  const port = await freePort();
  const base = await freeRange(n);
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-scale-'));
  const supervisor = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'info',
      ALLOW_PRIVATE_NETWORK: 'true', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
      WORKERS: String(n), WORKER_PORTS: String(base), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: any[] = [];
  const workers: Worker[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  let stderr = '';
  supervisor.stderr!.on('data', (c) => { stderr += c; if (process.env.SCALE_TEST_LOG) appendFileSync(process.env.SCALE_TEST_LOG, c); });
  if (process.env.SCALE_TEST_LOG) supervisor.stdout!.on('data', (c) => appendFileSync(process.env.SCALE_TEST_LOG!, c));
  supervisor.stdout!.on('data', (c) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      let o: any; try { o = JSON.parse(line); } catch { continue; }
      logs.push(o);
      if (o.msg === 'worker listening') {
        workers[o.worker] = { index: o.worker, pid: o.pid, url: `http://127.0.0.1:${o.ownPort}` };
        for (const w of waiters.splice(0)) w();
      }
    }
  });
  const waitWorker = async (index: number, notPid?: number, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(workers[index] && workers[index].pid !== notPid)) {
      if (supervisor.exitCode !== null) throw new Error(`the group stopped: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`worker ${index} did not start; stderr: ${stderr}`);
      await new Promise<void>((r) => { const t = setTimeout(r, 200); waiters.push(() => { clearTimeout(t); r(); }); });
    }
    return workers[index];
  };
  for (let i = 0; i < n; i++) await waitWorker(i);
  return {
    supervisor, port, dataDir, workers, logs, waitWorker,
    async stop() {
      if (supervisor.exitCode === null) {
        await new Promise<void>((resolve) => { supervisor.once('exit', () => resolve()); supervisor.kill('SIGTERM'); setTimeout(() => supervisor.kill('SIGKILL'), 15_000).unref(); });
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A request helper bound to one process (the shape test/helpers/auth.ts needs). */
export function at(url: string) {
  return {
    url,
    async request(method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
      const res = await fetch(url + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
      const text = await res.text();
      let body: any = text;
      try { body = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
      return { status: res.status, headers: res.headers, body };
    },
  };
}

export type { FakeOpenAI };
export { startFakeOpenAI };
