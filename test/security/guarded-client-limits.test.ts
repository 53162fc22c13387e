import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { clientPool, outboundFailure, startServer, type LoopbackServer } from './loopback-server.js';

let server: LoopbackServer;
let arrived: () => void = () => undefined;
/** Resolves once the server has received the next request (so time can move while it is in flight). */
const nextArrival = () => new Promise<void>((resolve) => (arrived = resolve));
const { client, closeAll } = clientPool({ allowPrivateNetwork: true });

test.before(async () => {
  server = await startServer((req, res) => {
    arrived();
    const [, kind, arg] = (req.url ?? '/').split('/');
    if (kind === 'sized') res.writeHead(200, { 'content-length': Number(arg) }).end('x'.repeat(Number(arg)));
    else if (kind === 'chunked') {
      for (let i = 0; i < 10; i++) res.write('y'.repeat(1000));
      res.end();
    } else if (kind === 'stall-body') res.writeHead(200, { 'content-type': 'text/plain' }).write('partial');
    else if (kind === 'hang') return; // never answers
    else res.end('ok');
  });
});
test.after(async () => {
  await closeAll();
  await server.close();
});

test('a body over the limit is cut at the limit and flagged as truncated', async () => {
  const res = await client({ maxResponseBytes: 1000 }).request(`${server.origin}/sized/5000`);
  assert.is(res.status, 200);
  assert.is(res.body.length, 1000);
  assert.is(res.truncated, true);
  const chunked = await client().request(`${server.origin}/chunked`, { maxResponseBytes: 2500 });
  assert.is(chunked.body.length, 2500);
  assert.is(chunked.truncated, true);
});

test('a body within the limit is read whole', async () => {
  const res = await client({ maxResponseBytes: 1000 }).request(`${server.origin}/sized/1000`);
  assert.is(res.body.length, 1000);
  assert.is(res.truncated, false);
});

test('with failOnTooLarge a long body gives too_large, whether declared or streamed', async () => {
  const c = client({ maxResponseBytes: 1000 });
  assert.is((await outboundFailure(c.request(`${server.origin}/sized/5000`, { failOnTooLarge: true }))).code, 'too_large');
  assert.is((await outboundFailure(c.request(`${server.origin}/chunked`, { failOnTooLarge: true }))).code, 'too_large');
});

test('a server that never answers gives timeout once the time limit passes', async () => {
  const clock = new FakeClock();
  const c = client({ clock, timeoutMs: 1000 });
  const arrival = nextArrival();
  const pending = outboundFailure(c.request(`${server.origin}/hang`));
  await arrival;
  await clock.advance(999);
  await clock.advance(1);
  const err = await pending;
  assert.is(err.code, 'timeout');
  assert.match(err.message, /1000 ms/);
});

test('a body that stalls half way also hits the total time limit', async () => {
  const clock = new FakeClock();
  const c = client({ clock });
  const arrival = nextArrival();
  const pending = outboundFailure(c.request(`${server.origin}/stall-body`, { timeoutMs: 500 }));
  await arrival;
  await clock.advance(500);
  assert.is((await pending).code, 'timeout');
});

test('fetch times out while waiting for response headers', async () => {
  const clock = new FakeClock();
  const c = client({ clock, timeoutMs: 2000 });
  const arrival = nextArrival();
  const pending = outboundFailure(c.fetch(`${server.origin}/hang`));
  await arrival;
  await clock.advance(2000);
  assert.is((await pending).code, 'timeout');
});

test('fetch keeps streaming a body after the header deadline, and the caller can still cancel it', async () => {
  const clock = new FakeClock();
  const c = client({ clock, timeoutMs: 100 });
  const controller = new AbortController();
  const res = await c.fetch(`${server.origin}/stall-body`, { signal: controller.signal });
  await clock.advance(10_000);
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.is(Buffer.from(first.value!).toString(), 'partial');
  controller.abort(new Error('caller gave up'));
  const after = await reader.read().then(() => 'read', (e: Error) => e.message);
  assert.is(after, 'caller gave up');
});

test('a caller abort rejects with the caller reason, not a timeout', async () => {
  const controller = new AbortController();
  const arrival = nextArrival();
  const pending = client().request(`${server.origin}/hang`, { signal: controller.signal }).catch((e: unknown) => e);
  await arrival;
  controller.abort(new Error('shutting down'));
  const err = (await pending) as Error;
  assert.is(err.message, 'shutting down');
});

test.run();
