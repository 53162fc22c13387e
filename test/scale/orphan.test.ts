/**
 * A worker leaves with its supervisor, even when the supervisor is killed (-9) while the worker is still starting
 * (compiling, opening the store, joining the group): no orphan goes on to serve the shared port and folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis as RedisClient } from 'ioredis';
import { freePort } from '../helpers/ports.js';
import { startRedis, type Redis } from './world.js';
import { until } from '../helpers/until.js';

let redis: Redis;
let dataDir = '';
const pids: number[] = [];
test.before(async () => { redis = await startRedis(); dataDir = mkdtempSync(join(tmpdir(), 'sc-orphan-')); });
test.after(async () => {
  for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Whether a process runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

const children = (pid: number) => {
  try { return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number); } catch { return []; }
};

test('a worker exits within seconds when its supervisor is killed while the worker is still starting', async () => {
  const supervisor: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env, PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'info',
      SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789', WORKERS: '2', REDIS_URL: redis.url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pids.push(supervisor.pid!);
  let out = '';
  supervisor.stdout!.on('data', (c) => { out += c; });
  supervisor.stderr!.on('data', (c) => { out += c; });
  // Killed once a worker is in the middle of its start: connected to Redis (its server code loaded, the store
  // and the group being joined), not listening yet. The supervisor's own check of Redis closed before it forked.
  const client = new RedisClient(redis.url);
  let workers: number[] = [];
  try {
    await until(async () => {
      workers = children(supervisor.pid!);
      const clients = (await client.client('LIST') as string).trim().split('\n').length - 1; // this client apart
      assert.is(supervisor.exitCode, null, `the supervisor stopped: ${out}`);
      return workers.length === 2 && clients > 0;
    }, { timeout: 90_000, message: () => `a worker reaching Redis: ${out}` });
  } finally {
    client.disconnect();
  }
  pids.push(...workers);
  assert.not.ok(out.includes('worker listening'), 'the workers are still starting when their supervisor dies');
  process.kill(supervisor.pid!, 'SIGKILL');
  const killed = performance.now();
  await until(() => !workers.some(running), { timeout: 20_000, interval: 50 }).catch(() => { /* the assertion below names what is left */ });
  const left = workers.filter(running);
  assert.equal(left, [], `workers still running ${((performance.now() - killed) / 1000).toFixed(1)} s after their supervisor was killed`);
  // A few seconds (the worker notices at once; a busy machine's scheduling and its exit take the rest).
  assert.ok(performance.now() - killed < 10_000, `the workers took ${((performance.now() - killed) / 1000).toFixed(1)} s to leave`);
});

test.run();
