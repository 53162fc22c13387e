import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { openEmbeddedStore } from '../../src/store/embedded.js';
import { threadNiceValues } from '../helpers/thread-nice.js';

interface Item { _id: string; workspaceId: string; n: number; text: string }

test('a busy embedded store keeps every write across close and reopen once checkpoints run in a worker', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-ckpt-'));
  try {
    const store = openEmbeddedStore(dir);
    const items = store.collection<Item>('items');
    // More writes than the threshold that moves checkpoints off the event loop.
    for (let i = 0; i < 3000; i++) await items.insertOne({ _id: `it_${String(i).padStart(5, '0')}`, workspaceId: 'ws_a', n: i, text: 'x'.repeat(200) });
    for (let i = 0; i < 500; i++) await items.updateOne({ workspaceId: 'ws_a', _id: `it_${String(i).padStart(5, '0')}` }, { $inc: { n: 1 } });
    // The worker copies the pages into the database file (3000 records of over 200 bytes) while the store is open.
    await until(() => statSync(join(dir, 'service.db')).size >= 600_000, { timeout: 10_000, interval: 20, message: () => `the checkpoint worker copying pages into service.db (${statSync(join(dir, 'service.db')).size} bytes)` });
    // The checkpoint worker is background work: its thread runs at the loop's nice value plus 10.
    const nice = threadNiceValues();
    assert.ok(nice.others.includes(Math.min(19, nice.main + 10)), `a thread at nice ${nice.main + 10} (the loop's is ${nice.main}; threads: ${nice.others.join(', ')})`);
    await store.close();
    const wal = join(dir, 'service.db-wal');
    assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'closing checkpoints and removes the WAL');

    const again = openEmbeddedStore(dir);
    const col = again.collection<Item>('items');
    assert.is(await col.count({ workspaceId: 'ws_a' }), 3000);
    assert.is((await col.findById('ws_a', 'it_00000'))?.n, 1);
    assert.is((await col.findById('ws_a', 'it_02999'))?.n, 2999);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an update by workspace and id changes only the record of that workspace', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-ckpt-'));
  try {
    const store = openEmbeddedStore(dir);
    const items = store.collection<Item>('items');
    await items.insertOne({ _id: 'it_1', workspaceId: 'ws_a', n: 1, text: '' });
    assert.is(await items.updateOne({ workspaceId: 'ws_b', _id: 'it_1' }, { $inc: { n: 1 } }), null);
    assert.is((await items.updateOne({ workspaceId: 'ws_a', _id: 'it_1' }, { $inc: { n: 1 } }))?.n, 2);
    const up = await items.updateOne({ workspaceId: 'ws_b', _id: 'it_2' }, { $set: { n: 5, text: 'new' } }, { upsert: true });
    assert.equal(up, { workspaceId: 'ws_b', _id: 'it_2', n: 5, text: 'new' });
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
