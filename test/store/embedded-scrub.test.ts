import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedStore } from '../../src/store/embedded.js';
import { openSqlite, SQLITE_DRIVER } from '../../src/store/sqlite.js';
import { until } from '../helpers/until.js';

interface Item { _id: string; workspaceId: string; text: string }

/**
 * A FULL checkpoint on another thread that holds SQLite's checkpoint lock while it waits for a writer: the
 * situation in which a scrub used to give up at once (SQLite does not wait for another connection's checkpoint).
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const db = workerData.driver === 'node:sqlite' ? new (require('node:sqlite').DatabaseSync)(workerData.file) : new (require(workerData.driver))(workerData.file);
db.exec('PRAGMA busy_timeout = 5000');
const r = db.prepare('PRAGMA wal_checkpoint(FULL)').get();
db.close();
parentPort.postMessage(r);
`;

test("erasing waits for another connection's checkpoint to end, then empties the write-ahead log", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-scrub-'));
  const file = join(dir, 'service.db');
  try {
    const store = openEmbeddedStore(dir);
    const items = store.collection<Item>('items');
    for (let i = 0; i < 50; i++) await items.insertOne({ _id: `it_${i}`, workspaceId: 'ws_a', text: `secret words ${i}` });
    await items.deleteMany({ workspaceId: 'ws_a' });

    // Another connection holds the write lock; a third starts a FULL checkpoint that waits for it.
    const writer = openSqlite(file);
    writer.pragma('busy_timeout = 5000');
    writer.exec('BEGIN IMMEDIATE');
    writer.exec("CREATE TABLE IF NOT EXISTS other (x)");
    const other = new Worker(CHECKPOINTER, { eval: true, workerData: { file, driver: SQLITE_DRIVER === 'node:sqlite' ? 'node:sqlite' : createRequire(import.meta.url).resolve('better-sqlite3') } });
    const finished = new Promise<{ busy: number }>((resolve, reject) => { other.once('message', resolve); other.once('error', reject); });
    const probe = openSqlite(file);
    const checkpointLockHeld = () => ((probe.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number }>)[0]?.busy ?? 0) === 1;
    await until(checkpointLockHeld, { timeout: 5000, interval: 5, message: () => 'the other thread holding the checkpoint lock' });

    const scrubbed = store.scrub().then(() => 'emptied', (err: Error) => err.message);
    // The other checkpoint ends once the writer commits, a moment later.
    setTimeout(() => writer.exec('COMMIT'), 300);
    assert.is(await scrubbed, 'emptied');
    assert.is((await finished).busy, 0);
    probe.close();
    writer.close();
    const wal = `${file}-wal`;
    assert.ok(!existsSync(wal) || statSync(wal).size === 0, `the write-ahead log is empty (${existsSync(wal) ? statSync(wal).size : 0} bytes)`);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
