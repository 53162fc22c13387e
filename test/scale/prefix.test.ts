/**
 * Two installations sharing one redis-server (each its own data folder and SECRET_KEY): every key and channel
 * begins with the installation's prefix (derived from its secret, or REDIS_PREFIX), so their per-address limits
 * are their own; the processes of one installation (same secret) still share theirs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis as RedisClient } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import { CONNECTIONS_PER_IP_PER_MINUTE } from '../../src/chat/widget-socket.js';
import { installationPrefix } from '../../src/scale/node.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connect } from '../team/helpers.js';
import { startRedis, type Redis } from './world.js';

const SECRET_A = 'installation-a-secret-0123456789abcdef';
const SECRET_B = 'installation-b-secret-0123456789abcdef';
let redis: Redis;
const servers: TestServer[] = [];
const start = async (env: Record<string, string>) => {
  const s = await startTestServer({ env: { REDIS_URL: redis.url, ...env } });
  servers.push(s);
  return s;
};
test.before(async () => { redis = await startRedis(); });
test.after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await redis?.stop();
});

/** Opens a widget socket (for a bot that does not exist: it still counts against the address's limit). */
const open = (s: TestServer) => connect(`ws://127.0.0.1:${s.port}/widget/v1/chat?botId=bot_nonexistent`).then(
  (c) => { void c.close(); return 0; },
  (err: { status?: number }) => err.status ?? -1,
);

test('widget connections per address are counted per installation, and across the processes of one', async () => {
  const a = await start({ SECRET_KEY: SECRET_A });
  const b = await start({ SECRET_KEY: SECRET_B });
  const statuses = [];
  for (let i = 0; i < CONNECTIONS_PER_IP_PER_MINUTE; i++) statuses.push(await open(a));
  assert.not.ok(statuses.includes(429), `within the limit: ${statuses.join(' ')}`);
  assert.is(await open(a), 429, 'past the limit on installation A');
  assert.is.not(await open(b), 429, 'installation B has its own count for the same address');
  // A second process of installation A (same secret) shares A's count.
  const a2 = await start({ SECRET_KEY: SECRET_A });
  assert.is(await open(a2), 429, "A's second process knows A's count");
  // REDIS_PREFIX names the prefix outright: a process of B given A's prefix joins A's count.
  const b2 = await start({ SECRET_KEY: SECRET_B, REDIS_PREFIX: installationPrefix(SECRET_A) });
  assert.is(await open(b2), 429);

  const client = new RedisClient(redis.url);
  try {
    const keys = await client.keys('*');
    const channels = await client.pubsub('CHANNELS', '*') as string[];
    const mine = [installationPrefix(SECRET_A), installationPrefix(SECRET_B)];
    assert.ok(keys.length > 0 && channels.length > 0);
    for (const k of [...keys, ...channels]) assert.ok(mine.some((p) => k.startsWith(p)), `${k} begins with an installation's prefix`);
    assert.ok(keys.some((k) => k.startsWith(mine[1])), "B's keys are there too");
  } finally {
    client.disconnect();
  }
});

test('REDIS_PREFIX is checked at start', () => {
  assert.throws(() => loadConfig({ REDIS_PREFIX: 'two words' }), /REDIS_PREFIX: must be 1-64 letters/);
  assert.is(loadConfig({ REDIS_PREFIX: 'acme:' }).redisPrefix, 'acme:');
  assert.is.not(installationPrefix(SECRET_A), installationPrefix(SECRET_B));
});

test.run();
