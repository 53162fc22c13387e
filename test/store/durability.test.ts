import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedStore } from '../../src/store/embedded.js';
import { newId } from '../../src/store/ids.js';
import { openEmbeddedVectors } from '../../src/store/vectors-embedded.js';

const dirs: string[] = [];
const tempDir = () => { const d = mkdtempSync(join(tmpdir(), 'sc-durable-')); dirs.push(d); return d; };
const ws = 'ws_durable';

test('records, files and vectors survive closing and reopening the embedded stores', async () => {
  const dir = tempDir();
  const store = openEmbeddedStore(dir);
  const vectors = openEmbeddedVectors(dir);
  const items = store.collection<{ _id: string; workspaceId: string; title: string }>('items', { indexes: [{ fields: [['workspaceId', 1], ['title', 1]], unique: true }] });
  const id = newId('item');
  await items.insertOne({ _id: id, workspaceId: ws, title: 'kept' });
  await items.updateOne({ _id: id, workspaceId: ws }, { $set: { title: 'updated' } });
  await store.files.put('file_1', Buffer.from('payload'), { workspaceId: ws, contentType: 'text/plain', size: 7 });
  await vectors.ensureCollection('chunks', 3);
  await vectors.upsert('chunks', [{ id: 'c1', vector: [1, 2, 3], payload: { workspaceId: ws } }, { id: 'c2', vector: [3, 2, 1], payload: { workspaceId: ws } }]);
  await vectors.deleteByFilter('chunks', { workspaceId: ws, sourceId: 'none' });
  await store.close();
  await vectors.close();

  const store2 = openEmbeddedStore(dir);
  const vectors2 = openEmbeddedVectors(dir);
  try {
    assert.equal(await store2.collection('items').findById(ws, id), { _id: id, workspaceId: ws, title: 'updated' });
    assert.is((await store2.files.get(ws, 'file_1'))?.data.toString(), 'payload');
    assert.is(await vectors2.count('chunks', { workspaceId: ws }), 2);
    assert.equal((await vectors2.search('chunks', [1, 2, 3], { filter: { workspaceId: ws }, limit: 1 }))[0].id, 'c1');
  } finally {
    await store2.close();
    await vectors2.close();
  }
});

test('every write a killed process acknowledged is there after reopening', async () => {
  const dir = tempDir();
  const fixture = new URL('./fixtures/writer.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked: string[] = [];
  let buffered = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? ''; // a line without its newline was not fully acknowledged
      for (const line of lines) if (line.startsWith('item_')) acked.push(line);
      if (acked.length >= 300 && !child.killed) { child.kill('SIGKILL'); resolve(); }
    });
  });
  await exited;
  assert.ok(acked.length >= 300);

  const store = openEmbeddedStore(dir);
  const vectors = openEmbeddedVectors(dir);
  try {
    const items = store.collection<{ _id: string; workspaceId: string }>('items');
    const stored = new Set((await items.find({ workspaceId: ws })).map((r) => r._id));
    const missing = acked.filter((id) => !stored.has(id));
    assert.equal(missing, [], `${missing.length} acknowledged records lost`);
    assert.ok(await vectors.count('chunks', { workspaceId: ws }) >= acked.length);
  } finally {
    await store.close();
    await vectors.close();
  }
});

test.after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

test.run();
