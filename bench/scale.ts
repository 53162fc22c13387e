/**
 * Scale-out bench (issue 25): chat turns per second through the widget socket with one server process (no
 * Redis) and with a WORKERS=2 group (Redis), at a fixed number of visitors each sending, waiting for the
 * reply and sending again; the CPU time per turn of each role (server processes, the load generator, the fake
 * provider, redis-server), read from /proc; Redis commands per turn, by command (Redis's own counters); then
 * the delay of live events that cross processes (visitor on worker 0, live socket on worker 1) against the same
 * process.
 *
 *   node --import tsx bench/scale.ts [--visitors=240] [--warmup=8] [--seconds=6] [--apparatus=lean|test] [--no-events] [--on-one] [--prof=dir]
 *
 * --apparatus=test drives with the tests' frame client and fake provider (what this bench used before, see
 * bench/scale-drive.ts and bench/scale-fake.ts); lean (the default) with clients and a fake that cost little.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { setupOwner } from '../test/helpers/auth.js';
import { at, freePort, startGroup, startRedis } from '../test/scale/world.js';
import { connect, type FrameClient } from '../test/team/helpers.js';
import { startChild } from './child.js';
import { cpuMeter, drive, type Cpu, type DriveResult } from './scale-drive.js';

const arg = (name: string, d: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
// Servers run with TRUST_PROXY=true and each visitor has its own X-Forwarded-For address, so the 30 chat
// connections an address a minute do not cap the visitors; a socket may send 240 frames a minute
// (src/chat/widget-socket.ts): keep (warmup + seconds) x turns/s per visitor under that.
// 240 by default: a process's CPU per turn falls as more conversations share its loop iterations and store
// batches, so fewer visitors (40) leave each process of a group half as busy as the single one, not saturated.
const VISITORS = Number(arg('visitors', '240'));
const WARMUP = Number(arg('warmup', '8'));
const SECONDS = Number(arg('seconds', '6'));
const APPARATUS = arg('apparatus', 'lean') === 'test' ? 'test' : 'lean';
// --prof=<dir>: every server process writes a V8 CPU profile there (summarise with bench/prof-top.mjs).
const PROF = arg('prof', '') ? ['--cpu-prof', `--cpu-prof-dir=${arg('prof', '')}`] : [];
const client = APPARATUS === 'test' ? 'frames' as const : 'lean' as const;
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN; };

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

/** One row per role: CPU ms per turn and share of one core over the drive. */
function cpuLine(label: string, r: DriveResult, cpu: Record<string, Cpu>, ms: number): string {
  const cells = Object.entries(cpu).map(([k, { user, sys, main }]) => `${k} ${((user + sys) / r.turns).toFixed(3)} ms/turn (sys ${(sys / r.turns).toFixed(3)}, main thread ${(main / r.turns).toFixed(3)}; ${((user + sys) / ms * 100).toFixed(0)}%)`);
  const total = Object.values(cpu).reduce((a, b) => a + b.user + b.sys, 0);
  return `${label} CPU: ${cells.join(', ')}; all ${(total / r.turns).toFixed(3)} ms/turn (${(total / ms * 100).toFixed(0)}% of one core)`;
}

/** Measures the roles' CPU and wall time, and `also` (Redis's counters), around the measured part of a drive. */
function meterFor(roles: Record<string, number[]>, also = async () => {}) {
  let stop: () => Record<string, Cpu> = () => ({});
  let wall = 0;
  const m = { cpu: {} as Record<string, Cpu>, ms: 0 };
  return {
    m,
    during: {
      start: async () => { await also(); stop = cpuMeter(roles); wall = performance.now(); },
      stop: async () => { m.cpu = stop(); m.ms = performance.now() - wall; await also(); },
    },
  };
}

async function single(fakeBase: string, apiKey: string, fakePid: number) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-'));
  const p = spawn(process.execPath, [...PROF, '--import', 'tsx', 'src/main.ts'], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'info', ALLOW_PRIVATE_NETWORK: 'true', TRUST_PROXY: 'true', API_RATE_PER_TOKEN: '0', API_RATE_PER_ADDRESS: '0', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789' }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  // Up to 60 s: on a busy machine the first start (tsx compiling the server) takes well over 20 s.
  for (let i = 0; i < 300; i++) { try { await fetch(url + '/healthz'); break; } catch { await new Promise((r) => setTimeout(r, 200)); } }
  const { botId } = await seed(url, fakeBase, apiKey);
  const { m, during } = meterFor({ server: [p.pid!], loadgen: [process.pid], fake: [fakePid] });
  const r = await drive({ urls: [url], botId, visitors: VISITORS, warmup: WARMUP, seconds: SECONDS, client }, during);
  p.kill('SIGTERM');
  await new Promise((res) => p.once('exit', res));
  rmSync(dataDir, { recursive: true, force: true });
  return { r, ...m };
}

const fake = await startChild('scale-fake.ts', [APPARATUS]);
const { baseUrl, apiKey } = fake.ready as { baseUrl: string; apiKey: string };
const redis = await startRedis();
try {
  const one = await single(baseUrl, apiKey, fake.proc.pid!);
  console.log(`apparatus ${APPARATUS}, ${VISITORS} visitors, ${WARMUP} s warm-up, ${SECONDS} s measured`);
  console.log(`1 process (no Redis): ${one.r.turnsPerSec.toFixed(1)} turns/s, turn p50 ${one.r.p50.toFixed(1)} ms, p99 ${one.r.p99.toFixed(1)} ms`);
  console.log(cpuLine('  1 process', one.r, one.cpu, one.ms));

  const group = await startGroup({ REDIS_URL: redis.url, TRUST_PROXY: 'true' }, 2, PROF);
  const urls = group.workers.map((w) => w.url);
  const { owner, botId } = await seed(urls[0], baseUrl, apiKey);
  const stats = new Redis(redis.url);
  const commands = async () => {
    const text = await stats.info('commandstats');
    return Object.fromEntries([...text.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((x) => [x[1], Number(x[2])]));
  };
  const snaps: Array<Record<string, number>> = [];
  const { m, during } = meterFor({
    servers: group.workers.map((w) => w.pid), supervisor: [group.supervisor.pid!], loadgen: [process.pid], fake: [fake.proc.pid!], redis: [redis.proc.pid!],
  }, async () => { snaps.push(await commands()); });
  // --on-one: every visitor on worker 0 (its own port), the other process idle but in the group: tells the cost
  // of being in a group (Redis, the shared store's bookkeeping) from that of two processes working at once.
  const target = process.argv.includes('--on-one') ? urls[0] : `http://127.0.0.1:${group.port}`;
  const two = await drive({ urls: [target], botId, visitors: VISITORS, warmup: WARMUP, seconds: SECONDS, client }, during);
  const [before, after] = snaps;
  // The bench's own INFO calls are not the servers' work.
  const per = Object.entries(after).map(([k, v]) => [k, (v - (before[k] ?? 0) - (k === 'info' ? 1 : 0)) / two.turns] as const).filter(([, v]) => v > 0.005).sort((a, b) => b[1] - a[1]);
  const perTurn = per.reduce((s, [, v]) => s + v, 0);
  console.log(`2 processes (Redis): ${two.turnsPerSec.toFixed(1)} turns/s (${(two.turnsPerSec / one.r.turnsPerSec).toFixed(2)}x), turn p50 ${two.p50.toFixed(1)} ms, p99 ${two.p99.toFixed(1)} ms`);
  console.log(cpuLine('  2 processes', two, m.cpu, m.ms));
  console.log(`  Redis commands per turn ${perTurn.toFixed(2)}: ${per.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
  // What the ratio would be with the apparatus (load generator, fake) on cores of its own, from CPU per turn: a
  // process is bounded by its main thread (the event loop, one core) and all its threads by the cores there are
  // (one process also uses others: the store's thread, V8's GC and compiler); Redis's CPU counts with the group.
  const all = (c: Cpu) => c.user + c.sys;
  const s1 = all(one.cpu.server) / one.r.turns;
  const main1 = one.cpu.server.main / one.r.turns;
  const s2 = (all(m.cpu.servers) + all(m.cpu.supervisor) + all(m.cpu.redis)) / two.turns;
  const main2 = m.cpu.servers.main / two.turns;
  const ceiling = (cores: number) => {
    const a = Math.min(1000 / main1, (cores * 1000) / s1);
    const b = Math.min((2 * 1000) / main2, (cores * 1000) / s2);
    return `${cores} cores ${a.toFixed(0)} vs ${b.toFixed(0)} turns/s (${(b / a).toFixed(2)}x)`;
  };
  console.log(`  CPU per turn: 1 process ${s1.toFixed(3)} ms (main thread ${main1.toFixed(3)}), 2 processes ${s2.toFixed(3)} ms with redis (main threads ${main2.toFixed(3)}); ceilings with the apparatus elsewhere, 1 vs 2 processes: ${ceiling(2)}, ${ceiling(4)}`);
  for (const [label, r] of [['1 process', one.r], ['2 processes', two]] as const) {
    if (r.abnormal.length) console.log(`${label}: sockets closed abnormally:\n  ${r.abnormal.join('\n  ')}`);
    if (r.errors.length) console.log(`${label}: visitors stopped early (the figures count fewer visitors):\n  ${r.errors.join('\n  ')}`);
  }

  if (!process.argv.includes('--no-events')) {
    // Live event delay: a visitor on worker 0; live sockets on worker 0 (same process) and worker 1 (across).
    const same = await connect(`${urls[0].replace('http', 'ws')}/api/v1/live`, { cookie: owner.cookie });
    const across = await connect(`${urls[1].replace('http', 'ws')}/api/v1/live`, { cookie: owner.cookie });
    const v = await connect(`${urls[0].replace('http', 'ws')}/widget/v1/chat?botId=${botId}`);
    await v.frame('ready');
    const d: { same: number[]; across: number[] } = { same: [], across: [] };
    const stamp = (c: FrameClient, into: number[]) => c.ws.on('message', (raw) => {
      const f = JSON.parse(String(raw));
      if (f.type === 'message.created') into.push(Date.now() - f.data.message.createdAt);
    });
    stamp(same, d.same); stamp(across, d.across);
    for (let i = 0; i < 200; i++) {
      v.send({ t: 'message', text: `e${i}` });
      await v.next((f) => f.t === 'message' && f.message.role === 'assistant');
    }
    await new Promise((r) => setTimeout(r, 200));
    console.log(`live event delay from createdAt (ms, ${d.across.length} events): same process p50 ${pct(d.same, 0.5)} p99 ${pct(d.same, 0.99)}; across processes p50 ${pct(d.across, 0.5)} p99 ${pct(d.across, 0.99)}`);
    await Promise.all([same.close(), across.close(), v.close()]);
  }
  stats.disconnect();
  await group.stop();
} finally {
  await redis.stop();
  fake.proc.kill();
}
