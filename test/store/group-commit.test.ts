import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedStore } from '../../src/store/embedded.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { DuplicateKeyError } from '../../src/store/types.js';

type Item = { _id: string; workspaceId: string; n: number };
const ws = 'ws_group';
const dirs: string[] = [];

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'sc-group-'));
  dirs.push(dir);
  const store = openEmbeddedStore(dir);
  const items = store.collection<Item>('items');
  // A second connection sees only what has been committed.
  const other = openSqlite(join(dir, 'service.db'));
  const committed = () => (other.prepare('SELECT COUNT(*) AS n FROM c_items').get() as { n: number }).n;
  return { store, items, other, committed };
}

test('writes of one event-loop turn commit together, and each is acknowledged only after the commit', async () => {
  const { store, items, other, committed } = setup();
  try {
    const writes = [1, 2, 3].map((n) => items.insertOne({ _id: `item_${n}`, workspaceId: ws, n }));
    assert.is(committed(), 0, 'nothing is visible to another connection before the commit');
    assert.is((await items.find({ workspaceId: ws })).length, 3, 'this connection reads its own writes at once');
    await Promise.all(writes);
    assert.is(committed(), 3, 'every acknowledged write is committed');
  } finally { other.close(); await store.close(); }
});

test('a failing write of a turn is rejected alone; the others of that turn still commit', async () => {
  const { store, items, other, committed } = setup();
  try {
    await items.insertOne({ _id: 'item_1', workspaceId: ws, n: 1 });
    const results = await Promise.allSettled([
      items.insertOne({ _id: 'item_2', workspaceId: ws, n: 2 }),
      items.insertOne({ _id: 'item_1', workspaceId: ws, n: 9 }),
      items.updateOne({ workspaceId: ws, _id: 'item_2' }, { $inc: { n: 10 } }),
    ]);
    assert.equal(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.instance((results[1] as PromiseRejectedResult).reason, DuplicateKeyError);
    assert.is(committed(), 2);
    assert.is((await items.findById(ws, 'item_1'))?.n, 1);
    assert.is((await items.findById(ws, 'item_2'))?.n, 12);
  } finally { other.close(); await store.close(); }
});

test('closing the store commits writes still waiting for their turn to end', async () => {
  const { store, items, other, committed } = setup();
  const write = items.insertOne({ _id: 'item_1', workspaceId: ws, n: 1 });
  await store.close();
  await write;
  assert.is(committed(), 1);
  other.close();
});

test.after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
test.run();
