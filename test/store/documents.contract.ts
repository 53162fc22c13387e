import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeRecords } from '../../src/store/encoded.js';
import { newId } from '../../src/store/ids.js';
import { DuplicateKeyError, UnscopedQueryError, type CollectionSpec, type Doc, type DocumentStore } from '../../src/store/types.js';

/**
 * The document store contract: every adapter must pass the same suite. `open` gives a store for the whole
 * suite; each test uses its own collection and workspace names, so tests never see each other's records.
 * With `skip` the tests are registered as skipped, so the run reports them (and why) instead of hiding them.
 */
export type DocumentStoreFactory = { open: () => Promise<DocumentStore>; cleanup?: () => Promise<void> } | { skip: string };

interface Rec extends Doc { [key: string]: unknown }

export function documentsContract(adapter: string, factory: DocumentStoreFactory): void {
  const title = 'skip' in factory ? `documents contract: ${adapter} (skipped: ${factory.skip})` : `documents contract: ${adapter}`;
  const s = suite(title);
  let store: DocumentStore;
  let seq = 0;
  const coll = (spec?: CollectionSpec) => store.collection<Rec>(`t${Date.now().toString(36)}_${++seq}`, spec);
  const ws = () => newId('ws');

  if ('skip' in factory) console.log(`# ${title}`);
  else {
    s.before(async () => { store = await factory.open(); });
    s.after(async () => { await store?.close(); await factory.cleanup?.(); });
  }
  const test = 'skip' in factory ? s.skip : s;

  async function rejects(p: Promise<unknown>, cls: new (...args: never[]) => Error): Promise<void> {
    try { await p; } catch (err) {
      assert.instance(err, cls);
      return;
    }
    assert.unreachable(`expected ${cls.name}`);
  }

  /** Four records for the operator tests; returns ids by letter, the collection and the workspace. */
  async function sample() {
    const c = coll();
    const w = ws();
    const id = { a: newId('rec'), b: newId('rec'), c: newId('rec'), d: newId('rec') };
    await c.insertMany([
      { _id: id.a, workspaceId: w, n: 1, tag: 'x', tags: ['red', 'blue'], active: true, profile: { email: 'a@x', age: 30 }, note: null },
      { _id: id.b, workspaceId: w, n: 2, tag: 'y', tags: ['blue'], active: false, profile: { email: 'b@x', age: 40 } },
      { _id: id.c, workspaceId: w, n: 3, tag: 'z', tags: [], profile: { age: 50 }, label: 'three' },
      { _id: id.d, workspaceId: w, n: '5', tag: 'w' },
    ]);
    const names = Object.fromEntries(Object.entries(id).map(([k, v]) => [v, k]));
    const q = async (filter: Record<string, unknown>) => (await c.find({ workspaceId: w, ...filter })).map((r) => names[r._id]).sort().join(',');
    return { c, w, id, q };
  }

  test('a record inserted is found by id in its own workspace only', async () => {
    const c = coll();
    const w = ws();
    const rec = { _id: newId('rec'), workspaceId: w, title: 'hello', nested: { a: [1, 2] } };
    assert.equal(await c.insertOne(rec), rec);
    assert.equal(await c.findById(w, rec._id), rec);
    assert.is(await c.findById(ws(), rec._id), null);
    assert.is(await c.findById(w, newId('rec')), null);
  });

  test('inserting an existing id fails with DuplicateKeyError', async () => {
    const c = coll();
    const rec = { _id: newId('rec'), workspaceId: ws() };
    await c.insertOne(rec);
    await rejects(c.insertOne({ ...rec, other: 1 }), DuplicateKeyError);
    await rejects(c.insertMany([{ _id: newId('rec'), workspaceId: rec.workspaceId }, rec]), DuplicateKeyError);
  });

  test('writes made at the same time each succeed or fail alone', async () => {
    const c = coll();
    const w = ws();
    const taken = { _id: newId('rec'), workspaceId: w, n: 0 };
    await c.insertOne(taken);
    const ids = Array.from({ length: 60 }, () => newId('rec'));
    // One batch of calls, none awaited before the next: the failing insert sits in the middle of them.
    const calls = [
      ...ids.slice(0, 30).map((_id, i) => c.insertOne({ _id, workspaceId: w, n: i + 1 })),
      c.insertOne({ ...taken, n: 99 }),
      c.updateOne({ workspaceId: w, _id: taken._id }, { $inc: { n: 5 } }),
      ...ids.slice(30).map((_id, i) => c.insertOne({ _id, workspaceId: w, n: i + 31 })),
    ];
    const settled = await Promise.allSettled(calls);
    const failed = settled.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    assert.is(failed.length, 1);
    assert.instance(failed[0].reason, DuplicateKeyError);
    assert.is(await c.count({ workspaceId: w }), 61);
    assert.is((await c.findById(w, taken._id))?.n, 5);
    assert.is((await c.findById(w, ids[59]))?.n, 60);
  });

  test('equality and comparison operators match like MongoDB, numbers never matching strings', async () => {
    const { q } = await sample();
    assert.is(await q({ n: 2 }), 'b');
    assert.is(await q({ n: { $eq: 3 } }), 'c');
    assert.is(await q({ tag: { $ne: 'x' } }), 'b,c,d');
    assert.is(await q({ tag: { $in: ['x', 'z'] } }), 'a,c');
    assert.is(await q({ tag: { $nin: ['x', 'z'] } }), 'b,d');
    assert.is(await q({ tag: { $in: [] } }), '');
    assert.is(await q({ n: { $gt: 1 } }), 'b,c');
    assert.is(await q({ n: { $gte: 2, $lt: 3 } }), 'b');
    assert.is(await q({ n: { $lte: 1 } }), 'a');
    assert.is(await q({ tag: { $gt: 'x' } }), 'b,c');
  });

  test('dotted paths, $or, $has and $exists select the right records', async () => {
    const { q } = await sample();
    assert.is(await q({ 'profile.email': 'b@x' }), 'b');
    assert.is(await q({ 'profile.age': { $gte: 40 } }), 'b,c');
    assert.is(await q({ $or: [{ tag: 'y' }, { 'profile.age': 50 }] }), 'b,c');
    assert.is(await q({ $or: [] }), '');
    assert.is(await q({ tag: 'x', $or: [{ n: 1 }, { n: 3 }] }), 'a');
    assert.is(await q({ tags: { $has: 'blue' } }), 'a,b');
    assert.is(await q({ tags: { $has: 'red' } }), 'a');
    assert.is(await q({ label: { $exists: true } }), 'c');
    assert.is(await q({ label: { $exists: false } }), 'a,b,d');
    assert.is(await q({ 'profile.email': { $exists: true } }), 'a,b');
  });

  test('booleans match only booleans and null matches a missing field', async () => {
    const { q } = await sample();
    assert.is(await q({ active: true }), 'a');
    assert.is(await q({ active: false }), 'b');
    assert.is(await q({ active: { $ne: true } }), 'b,c,d');
    assert.is(await q({ active: { $in: [true, null] } }), 'a,c,d');
    assert.is(await q({ note: null }), 'a,b,c,d');
    assert.is(await q({ note: { $exists: true } }), 'a');
    assert.is(await q({ note: { $ne: null } }), '');
    assert.is(await q({ 'profile.email': null }), 'c,d');
    assert.is(await q({ label: { $in: [null, 'three'] } }), 'a,b,c,d');
    assert.is(await q({ label: { $nin: [null] } }), 'c');
    assert.is(await q({ label: { $nin: [null, 'x'] } }), 'c');
  });

  test('records come newest first and before-paging returns every record exactly once', async () => {
    const c = coll();
    const w = ws();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push(newId('rec'));
    await c.insertMany(ids.map((_id, i) => ({ _id, workspaceId: w, i })));
    const newestFirst = [...ids].reverse();
    assert.equal((await c.find({ workspaceId: w })).map((r) => r._id), newestFirst);
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await c.find({ workspaceId: w }, { limit: 5, before });
      if (!page.length) break;
      seen.push(...page.map((r) => r._id));
      before = page[page.length - 1]._id;
    }
    assert.equal(seen, newestFirst);
    assert.is((await c.findOne({ workspaceId: w }))?._id, newestFirst[0]);
    assert.equal(await c.find({ workspaceId: w }, { limit: 0 }), []);
  });

  test('find sorts by a field in either direction, with skip and limit', async () => {
    const c = coll();
    const w = ws();
    await c.insertMany([3, 1, 4, 2].map((n) => ({ _id: newId('rec'), workspaceId: w, n, name: `r${n}` })));
    assert.equal((await c.find({ workspaceId: w }, { sort: [['n', 1]] })).map((r) => r.n), [1, 2, 3, 4]);
    assert.equal((await c.find({ workspaceId: w }, { sort: [['n', -1]] })).map((r) => r.n), [4, 3, 2, 1]);
    assert.equal((await c.find({ workspaceId: w }, { sort: [['name', 1]], skip: 1, limit: 2 })).map((r) => r.n), [2, 3]);
    assert.is((await c.findOne({ workspaceId: w }, { sort: [['n', 1]] }))?.n, 1);
  });

  test('findFields reads only the named fields, by dotted path, null where a record has none, paged like find', async () => {
    const { c, w, id } = await sample();
    const rows = await c.findFields({ workspaceId: w, tag: { $ne: 'w' } }, ['n', 'profile.email', 'tags', 'note', 'label'], { sort: [['n', 1]] });
    assert.equal(rows, [
      { _id: id.a, n: 1, 'profile.email': 'a@x', tags: ['red', 'blue'], note: null, label: null },
      { _id: id.b, n: 2, 'profile.email': 'b@x', tags: ['blue'], note: null, label: null },
      { _id: id.c, n: 3, 'profile.email': null, tags: [], note: null, label: 'three' },
    ]);
    assert.equal(await c.findFields({ workspaceId: w }, ['profile']), (await c.find({ workspaceId: w })).map((r) => ({ _id: r._id, profile: r.profile ?? null })));
    const page = await c.findFields({ workspaceId: w }, ['tag'], { limit: 2, before: id.d });
    assert.equal(page, [{ _id: id.c, tag: 'z' }, { _id: id.b, tag: 'y' }]);
    assert.equal(await c.findFields({ workspaceId: ws() }, ['tag']), []);
    await rejects(c.findFields({ tag: 'x' }, ['n']), UnscopedQueryError);
  });

  test('a collection with listFields lists them as findFields does without, and follows every write', async () => {
    const fields = ['n', 'profile.email', 'tags', 'note', 'label'];
    const c = coll({ listFields: fields });
    const w = ws();
    const plain = await sample();
    const records = await plain.c.find({ workspaceId: plain.w });
    await c.insertMany(records.map((r) => ({ ...r, workspaceId: w })));
    const strip = (rows: unknown[]) => JSON.stringify(rows);
    assert.is(strip(await c.findFields({ workspaceId: w }, fields)), strip(await plain.c.findFields({ workspaceId: plain.w }, fields)));
    assert.equal(await c.findFields({ workspaceId: w }, ['n'], { limit: 1, before: plain.id.c }), [{ _id: plain.id.b, n: 2 }]);
    await c.updateOne({ workspaceId: w, _id: plain.id.a }, { $set: { 'profile.email': 'new@x', label: { text: 'one' } } });
    await c.deleteOne({ workspaceId: w, _id: plain.id.b });
    assert.equal(await c.findFields({ workspaceId: w, n: { $lt: 3 } }, ['profile.email', 'label']), [{ _id: plain.id.a, 'profile.email': 'new@x', label: { text: 'one' } }]);
    assert.equal((await c.findFields({ workspaceId: w }, ['label'])).map((r) => r.label), [null, 'three', { text: 'one' }]);
  });

  test('count counts the matching records of the workspace', async () => {
    const { c, w } = await sample();
    assert.is(await c.count({ workspaceId: w }), 4);
    assert.is(await c.count({ workspaceId: w, tag: 'x' }), 1);
    assert.is(await c.count({ workspaceId: ws() }), 0);
  });

  test('a conditional update on revision lets exactly one of two concurrent writers win', async () => {
    const c = coll();
    const w = ws();
    const _id = newId('rec');
    await c.insertOne({ _id, workspaceId: w, revision: 1, title: 'start' });
    const write = (title: string) => c.updateOne({ _id, workspaceId: w, revision: 1 }, { $set: { title }, $inc: { revision: 1 } });
    const results = await Promise.all([write('one'), write('two')]);
    const winners = results.filter((r) => r !== null);
    assert.is(winners.length, 1);
    const stored = await c.findById(w, _id);
    assert.is(stored?.revision, 2);
    assert.is(stored?.title, winners[0]?.title);
    assert.is(await c.updateOne({ _id, workspaceId: w, revision: 1 }, { $set: { title: 'late' } }), null);
  });

  test('updateOne returns the record after the update: $set on a dotted path, $inc, $unset, $push with slice', async () => {
    const c = coll();
    const w = ws();
    const _id = newId('rec');
    await c.insertOne({ _id, workspaceId: w, keep: 1, drop: 'me', log: [1, 2], profile: { name: 'a' } });
    const after = await c.updateOne({ _id, workspaceId: w }, {
      $set: { 'profile.email': 'e@x' }, $inc: { hits: 2, keep: 1 }, $unset: ['drop'], $push: { log: { value: 3, slice: 2 }, fresh: { value: 'x' } },
    });
    const expected = { _id, workspaceId: w, keep: 2, hits: 2, log: [2, 3], fresh: ['x'], profile: { name: 'a', email: 'e@x' } };
    assert.equal(after, expected);
    assert.equal(await c.findById(w, _id), expected);
    assert.is(await c.updateOne({ _id: newId('rec'), workspaceId: w }, { $set: { a: 1 } }), null);
  });

  test('an upsert inserts from the filter and $setOnInsert, and later only updates', async () => {
    const c = coll();
    const w = ws();
    const _id = newId('rec');
    const first = await c.updateOne({ _id, workspaceId: w }, { $setOnInsert: { createdBy: 'me' }, $inc: { n: 1 } }, { upsert: true });
    assert.equal(first, { _id, workspaceId: w, createdBy: 'me', n: 1 });
    const second = await c.updateOne({ _id, workspaceId: w }, { $setOnInsert: { createdBy: 'other' }, $inc: { n: 1 } }, { upsert: true });
    assert.equal(second, { _id, workspaceId: w, createdBy: 'me', n: 2 });
    assert.is(await c.count({ workspaceId: w }), 1);
  });

  test('updateMany updates every match and returns how many', async () => {
    const { c, w, q } = await sample();
    assert.is(await c.updateMany({ workspaceId: w, tags: { $has: 'blue' } }, { $set: { flagged: true } }), 2);
    assert.is(await q({ flagged: true }), 'a,b');
    assert.is(await c.updateMany({ workspaceId: w, tag: 'none' }, { $set: { flagged: true } }), 0);
  });

  test('replaceOne swaps the whole record, or inserts it', async () => {
    const c = coll();
    const w = ws();
    const _id = newId('rec');
    await c.replaceOne({ _id, workspaceId: w, a: 1, b: 2 });
    await c.replaceOne({ _id, workspaceId: w, c: 3 });
    assert.equal(await c.findById(w, _id), { _id, workspaceId: w, c: 3 });
    assert.is(await c.count({ workspaceId: w }), 1);
  });

  test('replaceMany swaps the records that exist and inserts the others, in one call', async () => {
    const c = coll();
    const w = ws();
    const [a, b] = [newId('rec'), newId('rec')];
    await c.insertOne({ _id: a, workspaceId: w, v: 1, old: true });
    await c.replaceMany([]);
    await c.replaceMany([{ _id: a, workspaceId: w, v: 2 }, { _id: b, workspaceId: w, v: 3 }]);
    assert.equal(await c.findById(w, a), { _id: a, workspaceId: w, v: 2 });
    assert.equal(await c.findById(w, b), { _id: b, workspaceId: w, v: 3 });
    assert.is(await c.count({ workspaceId: w }), 2);
  });

  test('replaceEncoded writes records serialised into shared memory, as replaceMany would', async () => {
    const c = coll();
    const w = ws();
    const [a, b] = [newId('rec'), newId('rec')];
    await c.insertOne({ _id: a, workspaceId: w, v: 1, old: true });
    await c.replaceEncoded(encodeRecords([]));
    // More than one slice of the MongoDB adapter, and text beyond ASCII (byte offsets are not character offsets).
    const many = Array.from({ length: 1200 }, (_, i) => ({ _id: `${b}_${String(i).padStart(4, '0')}`, workspaceId: w, text: `ünïcode ${i} ✓` }));
    const rows = encodeRecords([{ _id: a, workspaceId: w, v: 2 }, ...many]);
    assert.ok(rows.bytes.buffer instanceof SharedArrayBuffer);
    await c.replaceEncoded(rows);
    assert.equal(await c.findById(w, a), { _id: a, workspaceId: w, v: 2 });
    assert.equal(await c.findById(w, many[1199]._id), many[1199]);
    assert.is(await c.count({ workspaceId: w }), 1201);
  });

  test('deleteOne and deleteMany report what they removed', async () => {
    const { c, w, q } = await sample();
    assert.is(await c.deleteOne({ workspaceId: w, tag: 'x' }), true);
    assert.is(await c.deleteOne({ workspaceId: w, tag: 'x' }), false);
    assert.is(await c.deleteMany({ workspaceId: w, tag: { $in: ['y', 'z'] } }), 2);
    assert.is(await q({}), 'd');
  });

  test('a unique index refuses a second record with the same value, sparse ones ignore records without it', async () => {
    const c = coll({ indexes: [{ fields: [['workspaceId', 1], ['email', 1]], unique: true }, { fields: [['token', 1]], unique: true, sparse: true }] });
    const w = ws();
    await c.insertOne({ _id: newId('rec'), workspaceId: w, email: 'a@x', token: 't1' });
    await rejects(c.insertOne({ _id: newId('rec'), workspaceId: w, email: 'a@x' }), DuplicateKeyError);
    await c.insertOne({ _id: newId('rec'), workspaceId: ws(), email: 'a@x' }); // another workspace: allowed
    const b = newId('rec');
    await c.insertOne({ _id: b, workspaceId: w, email: 'b@x' });
    await c.insertOne({ _id: newId('rec'), workspaceId: w, email: 'c@x' }); // two without token: allowed
    await rejects(c.insertOne({ _id: newId('rec'), workspaceId: w, email: 'd@x', token: 't1' }), DuplicateKeyError);
    await rejects(c.updateOne({ _id: b, workspaceId: w }, { $set: { email: 'a@x' } }), DuplicateKeyError);
    assert.is((await c.findById(w, b))?.email, 'b@x');
  });

  test('a query without workspaceId is refused unless it says crossWorkspace', async () => {
    const c = coll();
    const [w1, w2] = [ws(), ws()];
    await c.insertMany([{ _id: newId('rec'), workspaceId: w1, due: 1 }, { _id: newId('rec'), workspaceId: w2, due: 1 }]);
    await rejects(c.find({ due: 1 }), UnscopedQueryError);
    await rejects(c.findOne({ due: 1 }), UnscopedQueryError);
    await rejects(c.count({}), UnscopedQueryError);
    await rejects(c.updateOne({ due: 1 }, { $set: { x: 1 } }), UnscopedQueryError);
    await rejects(c.updateMany({ due: 1 }, { $set: { x: 1 } }), UnscopedQueryError);
    await rejects(c.deleteOne({ due: 1 }), UnscopedQueryError);
    await rejects(c.deleteMany({ due: 1 }), UnscopedQueryError);
    assert.is((await c.find({ due: 1 }, { crossWorkspace: true })).length, 2);
    assert.is(await c.count({ due: 1 }, { crossWorkspace: true }), 2);
    assert.is(await c.updateMany({ due: 1 }, { $set: { x: 1 } }, { crossWorkspace: true }), 2);
  });

  test("one workspace's reads and writes never touch another workspace's records", async () => {
    const c = coll();
    const [w1, w2] = [ws(), ws()];
    const shared = { tag: 'same' };
    const r1 = { _id: newId('rec'), workspaceId: w1, ...shared };
    const r2 = { _id: newId('rec'), workspaceId: w2, ...shared };
    await c.insertMany([r1, r2]);
    assert.equal((await c.find({ workspaceId: w1, tag: 'same' })).map((r) => r._id), [r1._id]);
    assert.is(await c.updateOne({ workspaceId: w1, _id: r2._id }, { $set: { hacked: true } }), null);
    assert.is(await c.updateMany({ workspaceId: w1, tag: 'same' }, { $set: { seen: true } }), 1);
    assert.is(await c.deleteMany({ workspaceId: w1 }), 1);
    assert.equal(await c.findById(w2, r2._id), r2);
  });

  test("dropWorkspace removes the workspace's records in every collection and its files", async () => {
    const [c1, c2] = [coll(), coll()];
    const [gone, kept] = [ws(), ws()];
    for (const c of [c1, c2]) await c.insertMany([{ _id: newId('rec'), workspaceId: gone }, { _id: newId('rec'), workspaceId: kept }]);
    const [f1, f2] = [newId('file'), newId('file')];
    await store.files.put(f1, Buffer.from('bye'), { workspaceId: gone, contentType: 'text/plain', size: 3 });
    await store.files.put(f2, Buffer.from('stay'), { workspaceId: kept, contentType: 'text/plain', size: 4 });
    await store.dropWorkspace(gone);
    for (const c of [c1, c2]) {
      assert.is(await c.count({ workspaceId: gone }), 0);
      assert.is(await c.count({ workspaceId: kept }), 1);
    }
    assert.is(await store.files.get(gone, f1), null);
    assert.is((await store.files.get(kept, f2))?.data.toString(), 'stay');
  });

  test('files are stored, replaced, read only from their workspace and deleted', async () => {
    const w = ws();
    const id = newId('file');
    const data = Buffer.from([0, 1, 2, 255, 254]);
    await store.files.put(id, data, { workspaceId: w, contentType: 'application/octet-stream', size: 0, name: 'x.bin' });
    const got = await store.files.get(w, id);
    assert.ok(got && got.data.equals(data));
    assert.equal(got?.meta, { workspaceId: w, contentType: 'application/octet-stream', size: 5, name: 'x.bin' });
    assert.is(await store.files.get(ws(), id), null);
    await store.files.put(id, Buffer.from('new'), { workspaceId: w, contentType: 'text/plain', size: 3 });
    assert.is((await store.files.get(w, id))?.data.toString(), 'new');
    assert.is(await store.files.delete(w, id), true);
    assert.is(await store.files.delete(w, id), false);
    assert.is(await store.files.get(w, id), null);
  });

  test('deleting a workspace of files removes all of them and counts them', async () => {
    const [w, other] = [ws(), ws()];
    const big = Buffer.alloc(600_000, 7); // more than one GridFS chunk
    await store.files.put(newId('file'), big, { workspaceId: w, contentType: 'application/octet-stream', size: big.length });
    await store.files.put(newId('file'), Buffer.from('b'), { workspaceId: w, contentType: 'text/plain', size: 1 });
    const keep = newId('file');
    await store.files.put(keep, Buffer.from('c'), { workspaceId: other, contentType: 'text/plain', size: 1 });
    assert.is(await store.files.deleteWorkspace(w), 2);
    assert.is(await store.files.deleteWorkspace(w), 0);
    assert.ok(await store.files.get(other, keep));
  });

  s.run();
}
