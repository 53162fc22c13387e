/**
 * The server in a child process (fixtures/server.ts), for widget tests of a crash: kill() is kill -9, restart()
 * starts it again on the same data folder. Pages reach it through a TCP relay that stays up (as a load balancer
 * would), so open widgets reconnect to the restarted server by themselves. (The server itself could not listen
 * on its old port again at once: the killed process's connections linger in TIME_WAIT for a minute, and its
 * exclusive listen does not set SO_REUSEADDR.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TestServer } from '../helpers/server.js';

const fixture = fileURLToPath(new URL('./fixtures/server.ts', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess extends Pick<TestServer, 'url' | 'port' | 'dataDir' | 'fetch' | 'request' | 'stop'> {
  /** kill -9: no shutdown code runs; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same data folder, reached at the same address. */
  restart(): Promise<void>;
}

function spawnServer(dataDir: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, port: JSON.parse(line).port }));
    child.once('close', (code) => reject(new Error(`server process exited (${code}) before listening: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve();
  else child.once('exit', () => resolve());
});

export async function startServerProcess(): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-widget-proc-'));
  let { child, port: serverPort } = await spawnServer(dataDir, 0);
  const relay = createServer((client) => {
    const upstream = createConnection(serverPort, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const port = (relay.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const fetchFn = (path: string, init?: RequestInit) => fetch(url + path, init);
  return {
    url, port, dataDir, fetch: fetchFn,
    async request(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
      const res = await fetchFn(path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
      const text = await res.text();
      let body: unknown = text;
      try { body = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
      return { status: res.status, headers: res.headers, body };
    },
    async kill() { child.kill('SIGKILL'); await exited(child); },
    async restart() { ({ child, port: serverPort } = await spawnServer(dataDir, 0)); },
    async stop() {
      child.kill('SIGKILL');
      await exited(child);
      await new Promise<void>((resolve) => relay.close(() => resolve()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
