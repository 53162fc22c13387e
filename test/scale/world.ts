/**
 * A scale-out group on loopback: a real redis-server (own port, nothing saved), the fake OpenAI provider, and
 * `node src/main.ts` started with WORKERS=3 (its supervisor forks three server processes sharing PORT and the
 * embedded store). Each worker also listens on its own port (WORKER_PORTS), so a test can pick the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/store/sqlite.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { addMember, setupOwner, type TestSession } from '../helpers/auth.js';
import { freePort, freeRange } from '../helpers/ports.js';
import { until } from '../helpers/until.js';
import { connect, type FrameClient } from '../team/helpers.js';

export interface Redis { port: number; url: string; proc: ChildProcess; stop(): Promise<void> }

export async function startRedis(port?: number): Promise<Redis> {
  port ??= await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // A test that ends without stop() (a failure, a runner's timeout) leaves no redis-server behind.
  const orphanGuard = () => proc.kill('SIGKILL');
  process.once('exit', orphanGuard);
  proc.once('exit', () => process.off('exit', orphanGuard));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c) => { out += c; if (out.includes('Ready to accept connections')) resolve(); });
    proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  return {
    port, url: `redis://127.0.0.1:${port}`, proc,
    stop: () => new Promise((resolve) => { if (proc.exitCode !== null || proc.signalCode !== null) return resolve(); proc.once('exit', () => resolve()); proc.kill('SIGKILL'); }),
  };
}

/**
 * Every command Redis runs from now on (MONITOR), each as its arguments (`['publish', 'sc:…:w:node', '…']`), until
 * close(). A plain socket: ioredis's monitor() can fail with "Command queue state error" when the first lines come
 * with the MONITOR's own answer (redis/ioredis#1981).
 */
export async function monitorRedis(url: string, onCommand: (args: string[], source: 'client' | 'lua') => void): Promise<{ close(): void }> {
  const { hostname, port } = new URL(url);
  const socket = tcpConnect(Number(port), hostname);
  let buf = '';
  let ready: () => void;
  const started = new Promise<void>((resolve, reject) => { ready = resolve; socket.once('error', reject); });
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\r\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 2);
      if (line === '+OK') { ready(); continue; }
      const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
      // `<time> [<db> <client address>|lua] "cmd" "arg"...`: the source says whether a Lua script made the call.
      if (args.length) onCommand([args[0].toLowerCase(), ...args.slice(1)], /^\S+ \[\d+ lua\]/.test(line) ? 'lua' : 'client');
    }
  });
  socket.on('error', () => { /* closed with Redis */ });
  socket.write('MONITOR\r\n');
  await started;
  return { close: () => socket.destroy() };
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

/** `nodeArgs`: extra node options for the supervisor, which its workers inherit (a bench's --cpu-prof). */
export async function startGroup(env: Record<string, string>, n = 3, nodeArgs: string[] = []): Promise<Group> {
  const port = await freePort();
  const base = await freeRange(n);
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-scale-'));
  const supervisor = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'info',
      ALLOW_PRIVATE_NETWORK: 'true', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
      WORKERS: String(n), WORKER_PORTS: String(base), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test that ends without stop() (a failure, a runner's timeout) leaves no group behind.
  const orphanGuard = () => supervisor.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const logs: any[] = [];
  const workers: Worker[] = [];
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
      }
    }
  });
  // A worker compiles the sources (tsx) as it starts: on a loaded machine that takes tens of seconds.
  const waitWorker = async (index: number, notPid?: number, timeoutMs = 120_000) => {
    return until(() => {
      if (supervisor.exitCode !== null) throw new Error(`the group stopped: ${stderr}`);
      return workers[index] && workers[index].pid !== notPid ? workers[index] : null;
    }, { timeout: timeoutMs, interval: 20, message: () => `worker ${index} to start; stderr: ${stderr}` });
  };
  try {
    for (let i = 0; i < n; i++) await waitWorker(i);
  } catch (err) {
    supervisor.kill('SIGKILL'); // its workers exit with it (they watch the supervisor's IPC channel)
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    supervisor, port, dataDir, workers, logs, waitWorker,
    async stop() {
      process.off('exit', orphanGuard);
      if (supervisor.exitCode === null) {
        await new Promise<void>((resolve) => { supervisor.once('exit', () => resolve()); supervisor.kill('SIGTERM'); setTimeout(() => supervisor.kill('SIGKILL'), 15_000).unref(); });
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Freezes a process (SIGSTOP) at a moment it holds no write transaction on the group's shared store: frozen
 * inside one (its store thread commits once per turn of its loop), it would hold the file's write lock and stall
 * every process's writes, which is not what a test looks at. Retries until a probe write gets the lock at once.
 */
export async function freezeOutsideWrites(group: Group, pid: number): Promise<void> {
  const db = openSqlite(join(group.dataDir, 'service.db'));
  db.pragma('busy_timeout = 0');
  try {
    await until(() => {
      process.kill(pid, 'SIGSTOP');
      try { db.exec('BEGIN IMMEDIATE'); db.exec('ROLLBACK'); return true; } catch { /* SQLITE_BUSY: it holds the lock */ }
      process.kill(pid, 'SIGCONT');
      return false;
    }, { timeout: 5000, message: `process ${pid} stopped while it does not hold the store's write lock` });
  } finally {
    db.close();
  }
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

/** Fails with the answer's status and body unless it is one of `ok`; returns the body. */
export function must(what: string, r: { status: number; body: any }, ...ok: number[]): any {
  if (!ok.includes(r.status)) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

export interface GroupWorld {
  redis: Redis;
  fake: FakeOpenAI;
  group: Group;
  owner: TestSession;
  /** A member with the agent role, named Alex Agent. */
  agent: TestSession;
  botId: string;
  /** Requests to process `i`. */
  w(i: number): ReturnType<typeof at>;
  /** A widget socket on process `i` (query: visitorToken and the like). */
  widget(i: number, query?: Record<string, string>): Promise<FrameClient>;
  /** A live (team panel) socket on process `i`. */
  live(i: number, who: TestSession): Promise<FrameClient>;
  /** A conversation's stored transcript, read through process `via` (the last one unless given). */
  transcript(conversationId: string, via?: number): Promise<any>;
  /**
   * A new visitor on process `i` while Redis is away: its first message is refused with a retry time (a new
   * conversation needs the group); returns the socket, for a later try.
   */
  newcomerRefused(i: number): Promise<FrameClient>;
  /** The transcript, checked to hold every message once and in order (seq 1, 2, ... without gap). */
  transcriptInOrder(conversationId: string, via?: number): Promise<any>;
  /** Restarts redis on its port after a test stopped it (world.redis is the new one). */
  restartRedis(): Promise<Redis>;
  close(): Promise<void>;
}

/**
 * A group of `n` processes with redis, the fake provider, an owner, an agent (on process 1) and a published
 * bot answered by the fake ("You said: ..."); `botPatch` adds to the bot's settings (handoff, texts...).
 * Sockets opened through it are closed by close(); a socket's error event (a killed process) is ignored, since
 * the close is what tests look at.
 */
export async function startGroupWorld(o: { env?: Record<string, string>; n?: number; botPatch?: Record<string, unknown>; nodeArgs?: string[] } = {}): Promise<GroupWorld> {
  const [redis, fake] = await Promise.all([startRedis(), startFakeOpenAI()]);
  const group = await startGroup({ REDIS_URL: redis.url, LEASE_MS: '1500', ...o.env }, o.n ?? 3, o.nodeArgs);
  const opened: FrameClient[] = [];
  const w = (i: number) => at(group.workers[i].url);
  const ws = (i: number) => group.workers[i].url.replace('http', 'ws');
  const track = async (p: Promise<FrameClient>) => { const c = await p; c.ws.on('error', () => {}); opened.push(c); return c; };
  const last = (o.n ?? 3) - 1;
  const owner = await setupOwner(w(0) as never);
  const agent = await addMember(w(Math.min(1, last)) as never, owner, 'agent', { name: 'Alex Agent' });
  const provider = must('POST /providers', await w(last).request('POST', '/api/v1/providers', {
    body: { kind: 'openai_compatible', name: 'Fake', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, headers: owner.headers,
  }), 201);
  const bot = must('POST /bots', await w(0).request('POST', '/api/v1/bots', { body: { name: 'Helper' }, headers: owner.headers }), 201);
  const botId: string = bot.id ?? bot.bot?.id;
  must('PATCH /bots', await w(Math.min(1, last)).request('PATCH', `/api/v1/bots/${botId}`, {
    body: { revision: bot.revision ?? bot.bot?.revision, patch: { brain: { connectionId: provider.id ?? provider.connection?.id, model: 'gpt-4o-mini' }, ...o.botPatch } },
    headers: owner.headers,
  }), 200);
  must('publish', await w(last).request('POST', `/api/v1/bots/${botId}/publish`, { body: {}, headers: owner.headers }), 200, 201);
  const world: GroupWorld = {
    redis, fake, group, owner, agent, botId, w,
    widget: (i, q = {}) => track(connect(`${ws(i)}/widget/v1/chat?${new URLSearchParams({ botId, ...q })}`)),
    live: (i, who) => track(connect(`${ws(i)}/api/v1/live`, { cookie: who.cookie })),
    transcript: async (id, via = last) => must('transcript', await w(via).request('GET', `/api/v1/conversations/${id}`, { headers: owner.headers }), 200),
    async newcomerRefused(i) {
      const newcomer = await world.widget(i);
      await newcomer.frame('ready');
      newcomer.send({ t: 'message', text: 'hello?' });
      const refused = await newcomer.frame('error');
      assert.is(refused.code, 'rate_limited');
      assert.ok(refused.retryAfterMs > 0, 'a retry time');
      return newcomer;
    },
    async transcriptInOrder(id, via) {
      const t = await world.transcript(id, via);
      assert.equal(t.messages.map((m: any) => m.seq), t.messages.map((_: unknown, k: number) => k + 1), 'no gap or double in the sequence');
      return t;
    },
    restartRedis: async () => (world.redis = await startRedis(world.redis.port)),
    async close() {
      await Promise.all(opened.map((c) => c.close().catch(() => {})));
      await group.stop();
      await Promise.all([world.redis.stop(), fake.close()]);
    },
  };
  return world;
}
