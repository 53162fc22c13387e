/**
 * Publishes without answers (src/scale/quiet-publisher.ts), against a real redis-server: they arrive, in order,
 * and Redis sends nothing back for them; where Redis refuses CLIENT REPLY the publisher says so and the caller
 * publishes answered; after Redis comes back it is quiet again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis as IORedis } from 'ioredis';
import { QuietPublisher } from '../../src/scale/quiet-publisher.js';
import { until } from '../helpers/until.js';
import { startRedis } from './world.js';

const options = { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 50 };

/** A subscriber of `channel` that keeps what it hears. */
async function listen(url: string, channel: string) {
  const sub = new IORedis(url);
  const heard: string[] = [];
  sub.on('message', (_c: string, m: string) => heard.push(m));
  await sub.subscribe(channel);
  return { heard, close: () => sub.disconnect() };
}

test('publishes arrive in order and Redis answers none of them', async () => {
  const redis = await startRedis();
  const conn = new IORedis(redis.url, options);
  const quiet = new QuietPublisher(conn);
  const sub = await listen(redis.url, 'ch');
  try {
    quiet.connect();
    await until(() => quiet.active, { timeout: 5000, interval: 10, message: () => 'the quiet connection ready' });
    let answered = 0;
    conn.stream.on('data', (chunk: Buffer) => { answered += chunk.length; });
    for (let i = 0; i < 200; i++) assert.ok(quiet.publish('ch', `line ${i} é`), `publish ${i} sent`);
    await until(() => sub.heard.length === 200, { timeout: 5000, interval: 10, message: () => `200 messages heard (${sub.heard.length})` });
    assert.equal(sub.heard, Array.from({ length: 200 }, (_, i) => `line ${i} é`));
    // Redis sent nothing back on the publisher's connection: nothing wakes the publishing process.
    assert.is(answered, 0);
  } finally {
    quiet.close(); sub.close(); await redis.stop();
  }
});

test('where Redis refuses CLIENT REPLY, the publisher stops and says so (the caller publishes answered)', async () => {
  const redis = await startRedis();
  const admin = new IORedis(redis.url);
  await admin.call('ACL', 'SETUSER', 'limited', 'on', '>secret-pass', '~*', '&*', '+@all', '-client');
  const { port } = new URL(redis.url);
  const conn = new IORedis(`redis://limited:secret-pass@127.0.0.1:${port}`, options);
  const quiet = new QuietPublisher(conn);
  const sub = await listen(redis.url, 'ch');
  try {
    quiet.connect();
    // Its CLIENT REPLY OFF is answered NOPERM, which arrives with no command waiting for it.
    await until(() => !quiet.active && conn.status === 'ready', { timeout: 5000, interval: 10, message: () => `the publisher stopping (${conn.status})` });
    assert.is(quiet.publish('ch', 'not sent'), false);
    // A publish on another connection arrives alone: nothing went before it.
    await admin.publish('ch', 'marker');
    await until(() => sub.heard.length > 0, { timeout: 5000, interval: 10, message: () => 'the marker heard' });
    assert.equal(sub.heard, ['marker']);
  } finally {
    quiet.close(); sub.close(); admin.disconnect(); await redis.stop();
  }
});

test('while Redis is away the publisher says no; when it is back, publishes go without answers again', async () => {
  const first = await startRedis();
  const conn = new IORedis(first.url, options);
  const quiet = new QuietPublisher(conn);
  try {
    quiet.connect();
    await until(() => quiet.active, { timeout: 5000, interval: 10, message: () => 'the quiet connection ready' });
    await first.stop();
    await until(() => !quiet.active, { timeout: 5000, interval: 10, message: () => 'the publisher noticing Redis gone' });
    assert.is(quiet.publish('ch', 'lost'), false);
    const again = await startRedis(first.port);
    const sub = await listen(again.url, 'ch');
    try {
      await until(() => quiet.active, { timeout: 10_000, interval: 20, message: () => 'the publisher back' });
      let answered = 0;
      conn.stream.on('data', (chunk: Buffer) => { answered += chunk.length; });
      assert.ok(quiet.publish('ch', 'after'));
      await until(() => sub.heard.length === 1, { timeout: 5000, interval: 10, message: () => 'the message heard' });
      assert.equal(sub.heard, ['after']);
      assert.is(answered, 0, 'the mode is set again on the new connection');
    } finally {
      sub.close(); await again.stop();
    }
  } finally {
    quiet.close();
  }
});

test.run();
