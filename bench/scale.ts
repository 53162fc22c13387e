/**
 * Scale-out bench (issue 25): chat turns per second through the widget socket with one server process (no
 * Redis) and with a WORKERS=2 group (Redis), at a fixed number of visitors each sending, waiting for the
 * reply and sending again; the delay of live events that cross processes (visitor on worker 0, live socket
 * on worker 1) against the same process; Redis commands per turn (from Redis's own counter).
 *
 *   node --import tsx bench/scale.ts [--visitors=40] [--seconds=10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { setupOwner } from '../test/helpers/auth.js';
import { at, freePort, startFakeOpenAI, startGroup, startRedis } from '../test/scale/world.js';
import { connect, type FrameClient } from '../test/team/helpers.js';

const arg = (name: string, d: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
// All visitors come from 127.0.0.1: at most 30 chat connections an address a minute (src/chat/widget-socket.ts).
const VISITORS = Math.min(arg('visitors', 20), 30);
const SECONDS = arg('seconds', 10);
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

/** Visitors on `urls` (spread round-robin) chatting for SECONDS; returns turns and turn latencies. */
async function drive(urls: string[], botId: string) {
  const clients: FrameClient[] = [];
  const closes: string[] = [];
  for (let i = 0; i < VISITORS; i++) {
    const c = await connect(`${urls[i % urls.length].replace('http', 'ws')}/widget/v1/chat?botId=${botId}`);
    // An abnormal close (1006) says nothing by itself: keep the client's own error (a bad frame, a reset) with it.
    let error = '';
    c.ws.on('error', (e) => { error = e.message; });
    c.ws.on('close', (code) => { if (code !== 1005 && code !== 1000) closes.push(`visitor ${i}: ${code} at ${new Date().toISOString()}${error ? ` (${error})` : ''}`); });
    await c.frame('ready');
    clients.push(c);
  }
  const until = Date.now() + SECONDS * 1000;
  const lat: number[] = [];
  let turns = 0;
  try {
    await Promise.all(clients.map(async (c, i) => {
      for (let n = 0; Date.now() < until; n++) {
        const t0 = performance.now();
        c.send({ t: 'message', text: `q${i}-${n}` });
        await c.next((f) => f.t === 'message' && f.message.role === 'assistant' && f.message.text === `You said: q${i}-${n}`, 30_000);
        lat.push(performance.now() - t0);
        turns++;
      }
    }));
  } finally {
    if (closes.length) console.log(`sockets closed abnormally:\n  ${closes.join('\n  ')}`);
  }
  await Promise.all(clients.map((c) => c.close()));
  return { turnsPerSec: turns / SECONDS, p50: pct(lat, 0.5), p99: pct(lat, 0.99), turns };
}

async function single(fakeBase: string, apiKey: string) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-'));
  const p = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'info', ALLOW_PRIVATE_NETWORK: 'true', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789' }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  // Up to 60 s: on a busy machine the first start (tsx compiling the server) takes well over 20 s.
  for (let i = 0; i < 300; i++) { try { await fetch(url + '/healthz'); break; } catch { await new Promise((r) => setTimeout(r, 200)); } }
  const { botId } = await seed(url, fakeBase, apiKey);
  const r = await drive([url], botId);
  p.kill('SIGTERM');
  await new Promise((res) => p.once('exit', res));
  rmSync(dataDir, { recursive: true, force: true });
  return r;
}

const fake = await startFakeOpenAI();
const redis = await startRedis();
try {
  const one = await single(fake.baseUrl, fake.apiKey);
  console.log(`1 process (no Redis): ${one.turnsPerSec.toFixed(1)} turns/s, turn p50 ${one.p50.toFixed(1)} ms, p99 ${one.p99.toFixed(1)} ms (${VISITORS} visitors, ${SECONDS} s)`);

  const group = await startGroup({ REDIS_URL: redis.url }, 2);
  const urls = group.workers.map((w) => w.url);
  const { owner, botId } = await seed(urls[0], fake.baseUrl, fake.apiKey);
  const stats = new Redis(redis.url);
  const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await stats.info('stats'))![1]);
  const before = await commands();
  const two = await drive([`http://127.0.0.1:${group.port}`], botId);
  const perTurn = ((await commands()) - before) / two.turns;
  console.log(`2 processes (Redis): ${two.turnsPerSec.toFixed(1)} turns/s (${(two.turnsPerSec / one.turnsPerSec).toFixed(2)}x), turn p50 ${two.p50.toFixed(1)} ms, p99 ${two.p99.toFixed(1)} ms; Redis commands per turn ${perTurn.toFixed(1)}`);

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
    await v.next((f) => f.t === 'message' && f.message.role === 'assistant' && f.message.text === `You said: e${i}`);
  }
  await new Promise((r) => setTimeout(r, 200));
  console.log(`live event delay from createdAt (ms, ${d.across.length} events): same process p50 ${pct(d.same, 0.5)} p99 ${pct(d.same, 0.99)}; across processes p50 ${pct(d.across, 0.5)} p99 ${pct(d.across, 0.99)}`);
  await Promise.all([same.close(), across.close(), v.close()]);
  stats.disconnect();
  await group.stop();
} finally {
  await redis.stop();
  await fake.close();
}
