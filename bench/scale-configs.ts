/**
 * The scale benches' server configurations (bench/scale.ts, bench/scale-idle.ts): one server process alone (no
 * Redis) or a WORKERS=n group with a redis-server of its own, seeded with an owner, a provider (the bench's fake)
 * and a published bot, with `live` admin panel live sockets open on the (first) process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { setupOwner } from '../test/helpers/auth.js';
import { freePort } from '../test/helpers/ports.js';
import { at, startGroup, startRedis, type Redis as RedisProc } from '../test/scale/world.js';
import { connect, type FrameClient } from '../test/team/helpers.js';

export const METRICS_TOKEN = 'bench-metrics-token-0123456789';
/**
 * Servers run with TRUST_PROXY=true and each visitor has its own X-Forwarded-For address, so the 30 chat
 * connections an address a minute do not cap them.
 */
export const ENV = {
  HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'info', ALLOW_PRIVATE_NETWORK: 'true', TRUST_PROXY: 'true',
  API_RATE_PER_TOKEN: '0', API_RATE_PER_ADDRESS: '0', METRICS_TOKEN, SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
};

/** How a configuration is started: node options (a --cpu-prof), panels to open, extra environment. */
export interface StartOptions { nodeArgs?: string[]; live?: number; env?: Record<string, string> }

async function seed(url: string, fakeBase: string, apiKey: string) {
  const s = at(url);
  const owner = await setupOwner(s as never);
  const provider = (await s.request('POST', '/api/v1/providers', { body: { kind: 'openai_compatible', name: 'Fake', apiKey, baseUrl: fakeBase }, headers: owner.headers })).body;
  const bot = (await s.request('POST', '/api/v1/bots', { body: { name: 'Bench' }, headers: owner.headers })).body;
  const botId = bot.id ?? bot.bot?.id;
  await s.request('PATCH', `/api/v1/bots/${botId}`, { body: { revision: bot.revision ?? bot.bot?.revision, patch: { brain: { connectionId: provider.id ?? provider.connection?.id, model: 'gpt-4o-mini' }, security: { rateLimits: { messagesPerMinute: 600, conversationsPerIpPerHour: 10000 } } } }, headers: owner.headers });
  await s.request('POST', `/api/v1/bots/${botId}/publish`, { body: {}, headers: owner.headers });
  return { owner, botId };
}

/** One configuration under test: its processes, where visitors connect, and its Redis (none for one process). */
export interface Config {
  name: string;
  procs: number;
  /** Where visitors connect (the group's shared port: the kernel spreads them). */
  url: string;
  /** Several servers that do not form a group (startApart): visitors are spread over them, each with its own bot. */
  apart?: { urls: string[]; botIds: string[] };
  /** Each process's own URL (metrics, the live sockets). */
  own: string[];
  /** The server processes (a group's workers, then its supervisor). */
  pids: number[];
  redis: RedisProc | null;
  stats: Redis | null;
  botId: string;
  live: FrameClient[];
  stop(): Promise<void>;
}

export async function startOne(fakeBase: string, apiKey: string, o: StartOptions = {}): Promise<Config> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-'));
  const p: ChildProcess = spawn(process.execPath, [...(o.nodeArgs ?? []), '--import', 'tsx', 'src/main.ts'], { env: { ...process.env, ...ENV, ...o.env, PORT: String(port), DATA_DIR: dataDir }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  // Up to 60 s: on a busy machine the first start (tsx compiling the server) takes well over 20 s.
  for (let i = 0; i < 300; i++) { try { await fetch(url + '/healthz'); break; } catch { await new Promise((r) => setTimeout(r, 200)); } }
  const { owner, botId } = await seed(url, fakeBase, apiKey);
  const live = await openLive(url, owner.cookie, o.live ?? 0);
  return {
    name: '1 process', procs: 1, url, own: [url], pids: [p.pid!], redis: null, stats: null, botId, live,
    async stop() {
      await Promise.all(live.map((c) => c.close()));
      p.kill('SIGTERM');
      await new Promise((res) => p.once('exit', res));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * n single processes that share nothing (no Redis, no group), each with its own data, bot and `live` panels:
 * the same work as a group of n spread over n processes, without any coordination. What a group costs beyond
 * it is what coordinating costs; what it costs beyond one process is what n processes on this machine cost.
 */
export async function startApart(n: number, fakeBase: string, apiKey: string, o: StartOptions = {}): Promise<Config> {
  const ones: Config[] = [];
  try { for (let i = 0; i < n; i++) ones.push(await startOne(fakeBase, apiKey, o)); } catch (err) { await Promise.all(ones.map((c) => c.stop())); throw err; }
  return {
    name: `${n} apart`, procs: n, url: ones[0].url, apart: { urls: ones.map((c) => c.url), botIds: ones.map((c) => c.botId) },
    own: ones.map((c) => c.url), pids: ones.flatMap((c) => c.pids), redis: null, stats: null, botId: ones[0].botId, live: ones.flatMap((c) => c.live),
    async stop() { await Promise.all(ones.map((c) => c.stop())); },
  };
}

export async function startWorkers(n: number, fakeBase: string, apiKey: string, o: StartOptions = {}): Promise<Config> {
  const redis = await startRedis();
  let group: Awaited<ReturnType<typeof startGroup>>;
  try { group = await startGroup({ ...ENV, ...o.env, REDIS_URL: redis.url }, n, o.nodeArgs ?? []); } catch (err) { await redis.stop(); throw err; }
  const own = group.workers.map((w) => w.url);
  const { owner, botId } = await seed(own[0], fakeBase, apiKey);
  const live = await openLive(own[0], owner.cookie, o.live ?? 0);
  const stats = new Redis(redis.url);
  return {
    name: `${n} processes`, procs: n, url: `http://127.0.0.1:${group.port}`, own, pids: [...group.workers.map((w) => w.pid), group.supervisor.pid!], redis, stats, botId, live,
    async stop() {
      await Promise.all(live.map((c) => c.close()));
      stats.disconnect();
      await group.stop();
      await redis.stop();
    },
  };
}

async function openLive(url: string, cookie: string, n: number): Promise<FrameClient[]> {
  const out: FrameClient[] = [];
  for (let i = 0; i < n; i++) {
    const c = await connect(`${url.replace('http', 'ws')}/api/v1/live`, { cookie });
    // The live socket's frames are not kept: a long run would hold thousands of them.
    c.ws.removeAllListeners('message');
    out.push(c);
  }
  return out;
}

/** Redis's counters: network reads (client writes), commands in all and by name. */
export async function redisCounters(c: Config): Promise<{ reads: number; commands: number; byName: Map<string, number> }> {
  if (!c.stats) return { reads: 0, commands: 0, byName: new Map() };
  const [stats, cmds] = await Promise.all([c.stats.info('stats'), c.stats.info('commandstats')]);
  const reads = Number(/total_reads_processed:(\d+)/.exec(stats)?.[1] ?? 0);
  const byName = new Map([...cmds.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].filter((x) => x[1] !== 'info').map((x) => [x[1], Number(x[2])]));
  return { reads, commands: [...byName.values()].reduce((s, x) => s + x, 0), byName };
}

/** The group's own count of commands sent to Redis, from every process's metrics. */
export async function roundTrips(c: Config): Promise<number> {
  if (!c.redis) return 0;
  const texts = await Promise.all(c.own.map(async (u) => (await fetch(`${u}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()));
  return texts.reduce((s, t) => s + Number(/^servicechat_redis_round_trips_total (\d+)/m.exec(t)?.[1] ?? 0), 0);
}
