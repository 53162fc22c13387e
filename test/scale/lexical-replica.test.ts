/**
 * The keyword index across machines: two knowledge services, each with its own DATA_DIR (its own lexical.db)
 * over ONE store seen as shared (as MongoDB is) and a real redis-server. What one machine indexes or deletes,
 * the other's keyword search finds or stops finding; a machine that was off catches up when it starts; a
 * process sharing the writer's file copies nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closePool } from '../../workers/pool.js';
import type { AppContext } from '../../src/app/context.js';
import { openRecords } from '../../src/records-root.js';
import { createCredentialCache } from '../../src/auth/credential-cache.js';
import { WorkspaceDeletion } from '../../src/auth/workspace-cleanup.js';
import { AccessEndings } from '../../src/auth/access-ended.js';
import { systemClock } from '../../src/kernel/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { EventBus } from '../../src/app/event-bus.js';
import type { LexicalReplica } from '../../src/knowledge/lexical-replica.js';
import { knowledge, KnowledgeService } from '../../src/knowledge/service.js';
import { createLogger } from '../../src/kernel/log.js';
import { ScaleNode } from '../../src/scale/node.js';
import { openEmbeddedStore } from '../../src/store/embedded.js';
import type { DocumentStore } from '../../src/store/types.js';
import { openEmbeddedVectors } from '../../src/store/vectors-embedded.js';
import { startRedis, type Redis } from './world.js';
import { until } from '../helpers/until.js';

const WS = 'ws_lexreplica';
const dirs: string[] = [];
const tempDir = () => { const d = mkdtempSync(join(tmpdir(), 'sc-lexrep-')); dirs.push(d); return d; };

interface Machine { app: AppContext; dataDir: string; lexical: LexicalReplica; deletion: WorkspaceDeletion; close(): Promise<void> }

let redis: Redis;
let store: DocumentStore;
/** The one store every machine reads, reporting itself as not a file of this machine's (as MongoDB does). */
let shared: DocumentStore;

/** One server's knowledge area: its own DATA_DIR and Redis connection, the shared store. */
async function machine(dataDir = tempDir()): Promise<Machine> {
  const config = loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789', REDIS_URL: redis.url });
  const log = createLogger((process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent');
  const scale = await ScaleNode.connect(redis.url, log, 1500);
  const closers: Array<() => Promise<void> | void> = [];
  const app: AppContext = {
    config, log, clock: systemClock, store: shared, records: openRecords(shared, { botsChanged: async () => {} }), vectors: openEmbeddedVectors(dataDir), events: new EventBus(shared, systemClock, log),
    secretKey: Buffer.alloc(32, 1), scale, onClose: (fn) => { closers.push(fn); },
  };
  // The services this test uses: knowledge, and deleting a workspace (which also forgets its kept credentials).
  const endings = new AccessEndings(app);
  const deletion = new WorkspaceDeletion(app, endings, createCredentialCache(app, endings));
  const service = knowledge.provide(app, new KnowledgeService(app, deletion));
  closers.push(() => service.close());
  const lexical = service.lexical as LexicalReplica;
  await lexical.started;
  return {
    app, dataDir, lexical, deletion,
    async close() { for (const fn of closers.reverse()) await fn(); await scale.close(); },
  };
}

const addText = async (m: Machine, name: string, text: string) => {
  const s = await knowledge(m.app).create(WS, { kind: 'text', name, text: `# ${name}\n\n${text}` });
  await knowledge(m.app).runner.idle(s._id);
  return s._id;
};
const titles = async (m: Machine, query: string) => (await knowledge(m.app).search(WS, query, { topK: 5 })).results.map((r) => r.title);
/** The titles `query` finds on machine `m`, once `ok` accepts them (or the last ones seen, in the timeout's error). */
const found = (m: Machine, query: string, ok: (titles: string[]) => boolean) => until(() => titles(m, query), { ok, timeout: 10_000, interval: 50 });
/**
 * The entries a machine's file holds for a source. Search never shows a chunk the store no longer has, but
 * entries left behind would still take places in the ranking and skew word frequencies.
 */
const entries = (m: Machine, sourceId: string) => m.lexical.count({ workspaceId: WS, sourceId });

let a: Machine;
let b: Machine;

test.before(async () => {
  redis = await startRedis();
  store = openEmbeddedStore(tempDir());
  shared = Object.create(store, { kind: { value: 'mongo' } });
  [a, b] = [await machine(), await machine()];
});
test.after(async () => {
  await a?.close(); await b?.close();
  await closePool();
  await store?.close();
  await redis?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('a source indexed on one machine is found by keyword search on another, and its removal reaches it too', async () => {
  const id = await addText(a, 'Tomato guide', 'Water tomatoes deeply twice a week; mulch keeps the soil moist.');
  assert.equal(await titles(a, 'mulch tomatoes'), ['Tomato guide'], 'found where it was indexed');
  assert.equal(await found(b, 'mulch tomatoes', (t) => t.length > 0), ['Tomato guide'], 'found on the other machine');

  // New text replaces the old on both machines.
  await knowledge(a.app).patch(WS, id, { text: '# Tomato guide\n\nCut roses back in late winter above an outward bud; pruning roses pays.' });
  await knowledge(a.app).runner.idle(id);
  assert.equal(await found(b, 'pruning roses', (t) => t.length > 0), ['Tomato guide']);
  assert.equal(await titles(b, 'mulch moist'), [], 'the old text is gone from the other machine');

  await knowledge(a.app).remove(WS, id);
  assert.is(await until(() => entries(b, id), { ok: (n) => n === 0, timeout: 10_000, interval: 50 }), 0, "the removed source's entries leave the other machine's file");
  assert.equal(await titles(b, 'pruning roses'), []);
});

test('a machine that was off while documents changed catches up when it starts again', async () => {
  const kept = await addText(a, 'Compost notes', 'Turn the compost heap every fortnight; brown leaves balance green kitchen scraps.');
  const dropped = await addText(a, 'Seed calendar', 'Sow peppers indoors in February under a grow light.');
  assert.ok((await found(b, 'peppers grow light', (t) => t.length > 0)).length, 'B had the seed calendar before going off');
  const bDir = b.dataDir;
  await b.close();

  await knowledge(a.app).remove(WS, dropped);
  await knowledge(a.app).patch(WS, kept, { text: '# Compost notes\n\nWorm bins turn kitchen scraps into castings within three months.' });
  await knowledge(a.app).runner.idle(kept);
  const added = await addText(a, 'Frost dates', 'Cover seedlings with fleece when a late frost is forecast.');

  b = await machine(bDir); // the same DATA_DIR: its lexical.db still holds what it had
  const stats = await b.lexical.started;
  assert.ok(stats, 'it reconciled at start');
  assert.is(stats!.removed, 1, `the removed source's document went: ${JSON.stringify(stats)}`);
  assert.is(stats!.copied, 2, `the changed and the new document were copied, nothing else: ${JSON.stringify(stats)}`);
  assert.equal(await titles(b, 'fleece frost'), ['Frost dates']);
  assert.equal(await titles(b, 'worm castings'), ['Compost notes']);
  assert.equal(await titles(b, 'brown leaves fortnight'), [], 'the old text of the changed one is gone');
  assert.equal(await titles(b, 'peppers grow light'), [], 'the removed one is gone');
  assert.is(await entries(b, dropped), 0);

  // A second start finds nothing to do.
  const again = await b.lexical.reconcile('test');
  assert.is(again!.copied + again!.removed, 0, JSON.stringify(again));
  await knowledge(a.app).remove(WS, kept);
  await knowledge(a.app).remove(WS, added);
});

test('a removal made while Redis was away reaches the other machine when Redis comes back', async () => {
  const id = await addText(a, 'Bean trellis', 'Runner beans climb a trellis of hazel poles.');
  assert.equal(await found(b, 'hazel trellis', (t) => t.length > 0), ['Bean trellis']);
  await redis.stop();
  await until(() => !a.app.scale!.healthy && !b.app.scale!.healthy, { message: 'both machines noticing Redis gone (their connections close)' });
  await knowledge(a.app).remove(WS, id); // its message is lost: there is no Redis to carry it
  assert.ok(await entries(b, id) > 0, 'the other machine still holds it');
  redis = await startRedis(redis.port);
  assert.ok(await until(() => a.app.scale!.healthy && b.app.scale!.healthy, { ok: Boolean, timeout: 10_000, interval: 50 }), 'both machines reconnect');
  assert.is(await until(() => entries(b, id), { ok: (n) => n === 0, timeout: 10_000, interval: 50 }), 0, 'dropped by the reconcile after Redis returned');
});

test("a process sharing the writer's file finds its documents without copying them", async () => {
  const peer = await machine(a.dataDir); // a second worker of machine A: the same lexical.db
  try {
    const before = peer.lexical.copies;
    const id = await addText(a, 'Soil pH', 'Blueberries want acid soil, a pH between 4.5 and 5.5.');
    assert.equal(await found(b, 'blueberries acid', (t) => t.length > 0), ['Soil pH'], 'the other machine copied it');
    assert.equal(await titles(peer, 'blueberries acid'), ['Soil pH'], 'the peer reads it from the shared file');
    assert.is(peer.lexical.copies, before, 'and copied nothing');
    await knowledge(a.app).remove(WS, id);
    assert.is(await until(() => entries(b, id), { ok: (n) => n === 0, timeout: 10_000, interval: 50 }), 0);
    assert.is(await entries(peer, id), 0);
    assert.is(peer.lexical.copies, before, 'nor copied the removal');
  } finally { await peer.close(); }
});

test("a workspace deleted on one machine leaves the other machine's file", async () => {
  const id = await addText(a, 'Hedge trimming', 'Trim beech hedges in late summer after birds have nested.');
  assert.ok((await until(() => entries(b, id), { ok: (n) => n > 0, timeout: 10_000, interval: 50 })) > 0, 'the other machine copied it');
  await a.deletion.delete(WS);
  assert.is(await until(() => b.lexical.count({ workspaceId: WS }), { ok: (n) => n === 0, timeout: 10_000, interval: 50 }), 0);
  assert.is(await a.lexical.count({ workspaceId: WS }), 0);
});

test.run();
