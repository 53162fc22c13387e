import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EmbeddedStore } from '../../src/store/embedded.js';
import { DEFAULT_PASSWORD, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 40, item 9: with the disk full, writes and sign-in answered 500 internal while /readyz said ready.
// The disk is made full at the store's lowest layer: its thread fails every write with SQLite's own SQLITE_FULL
// ("database or disk is full"), as SQLite does when the file cannot grow; reads go on working, as they do.
const TOKEN = 'metrics-token-0123456789';
let s: TestServer;
let owner: TestSession;
test.before(async () => {
  s = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
  owner = await setupOwner(s);
});
test.after(async () => { await s.stop(); });

const store = () => s.app.store as EmbeddedStore;
const login = () => s.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: DEFAULT_PASSWORD } });
const createBot = (name: string) => s.request('POST', '/api/v1/bots', { body: { name }, headers: owner.headers });
const diskFullMetric = async () => {
  const text = await (await s.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return Number(/^servicechat_disk_full (\d+)$/m.exec(text)?.[1]);
};

test('a full disk: writes and sign-in answer 507 naming the disk, reads still work, /readyz and the metric say so', async () => {
  assert.is(await diskFullMetric(), 0);
  await store().injectWriteFault('SQLITE_FULL');
  try {
    for (const r of [await login(), await createBot('Disk full bot')]) {
      assert.is(r.status, 507, JSON.stringify(r.body));
      assert.is(r.body.error.code, 'insufficient_storage');
      assert.ok(r.body.error.message.includes(`the disk holding the data folder ${s.dataDir} is full`), r.body.error.message);
      assert.match(r.body.error.message, /nothing was changed.*free space/);
      assert.is(r.headers.get('retry-after'), '60');
    }
    const list = await s.request('GET', '/api/v1/bots', { headers: owner.headers });
    assert.is(list.status, 200, 'reads work');
    assert.not.ok(list.body.items.some((b: { name: string }) => b.name === 'Disk full bot'), 'nothing was saved');

    const ready = await s.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.is(ready.body.checks.disk.ok, false);
    assert.ok(ready.body.checks.disk.problem.includes(s.dataDir), ready.body.checks.disk.problem);
    assert.is(ready.body.checks.store.ok, true, 'the store itself answers');
    assert.is(await diskFullMetric(), 1);
  } finally {
    await store().injectWriteFault(null);
  }
});

test('space freed: the server recovers by itself, no restart', async () => {
  const ready = await s.request('GET', '/readyz');
  assert.is(ready.status, 200, JSON.stringify(ready.body));
  assert.equal(ready.body.checks.disk, { ok: true });
  assert.is(await diskFullMetric(), 0);
  assert.is((await login()).status, 200);
  assert.is((await createBot('After the disk was freed')).status, 201);
});

test.run();
