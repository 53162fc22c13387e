/**
 * The capacity test's reading of a scale-out group's metrics (two processes, a real redis-server): given one
 * metrics URL per process it adds them up (requests served by either process all count); given the group's one
 * port it says the figures are one process's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MetricsWatcher } from '../../src/loadtest/server-metrics.js';
import { startGroupWorld, type GroupWorld } from './world.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
let world: GroupWorld;
test.before(async () => { world = await startGroupWorld({ n: 2, env: { METRICS_TOKEN } }); });
test.after(async () => { await world?.close(); });

test('one metrics URL per process: the figures are the whole group\'s; the shared port alone: said to be one process\'s', async () => {
  const each = new MetricsWatcher(world.group.workers.map((w) => `${w.url}/metrics`), METRICS_TOKEN);
  const shared = new MetricsWatcher([`http://127.0.0.1:${world.group.port}/metrics`], METRICS_TOKEN);
  await Promise.all([each.start(60_000), shared.start(60_000)]);
  for (let i = 0; i < 6; i++) await world.w(0).request('GET', '/api/v1/bots', { headers: world.owner.headers });
  for (let i = 0; i < 4; i++) await world.w(1).request('GET', '/api/v1/bots', { headers: world.owner.headers });
  const [all, one] = await Promise.all([each.stop(), shared.stop()]);

  assert.is(all.processes, 2);
  assert.is(all.warning, null);
  assert.ok(all.summary!.httpRequests >= 10, `both processes' requests count: ${all.summary!.httpRequests}`);
  assert.is(one.processes, 1);
  assert.match(one.warning ?? '', /one process of a scale-out group/);
  assert.match(one.warning ?? '', /--metrics-url once per process/);
});

test.run();
