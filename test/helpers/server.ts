import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/kernel/clock.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { createLogger } from '../../src/kernel/log.js';
import { startServer, type RunningServer } from '../../src/server.js';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** fetch against the server: `api('/api/v1/setup')`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON request helper: returns status, headers and parsed body. */
  request(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; headers: Headers; body: any }>;
  /** Stops the server and removes its data folder (unless keepData). */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** Starts the real server on 127.0.0.1 with a fresh DATA_DIR (or the given one), quiet logs, private network allowed. */
export async function startTestServer(opts: { env?: Record<string, string>; dataDir?: string; clock?: Clock; config?: Partial<Config> } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'sc-test-'));
  const config = loadConfig({
    PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ALLOW_PRIVATE_NETWORK: 'true', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
    // Tests send thousands of API requests from loopback: the REST rate limits are off unless a test sets them.
    API_RATE_PER_TOKEN: '0', API_RATE_PER_ADDRESS: '0',
    ...(process.env.MONGODB_URL && !opts.env?.DATA_ONLY ? {} : {}),
    ...opts.env,
  }, opts.config);
  const server = await startServer(config, { clock: opts.clock, logger: createLogger(config.logLevel) });
  const base = `http://127.0.0.1:${server.port}`;
  const fetchFn = (path: string, init?: RequestInit) => fetch(base + path, init);
  return {
    ...server,
    url: base,
    dataDir,
    fetch: fetchFn,
    async request(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
      const res = await fetchFn(path, { method, headers, body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body) });
      const text = await res.text();
      let body: unknown = text;
      try { body = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
      return { status: res.status, headers: res.headers, body };
    },
    async stop(s = {}) {
      await server.close();
      if (!s.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
