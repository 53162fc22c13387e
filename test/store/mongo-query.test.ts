import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { indexDefinitions, isDuplicateKey, toMongoFilter, toMongoSort, toMongoUpdate, withBefore } from '../../src/store/mongo-query.js';

// The MongoDB adapter's translations, checked without a server (the contract suite covers behaviour when
// MONGODB_URL is set).

test('plain values and port operators become the same MongoDB conditions', () => {
  assert.equal(toMongoFilter({ workspaceId: 'ws_1', 'profile.email': 'a@x', n: { $gte: 2, $lt: 5 }, tag: { $in: ['x'] }, gone: { $exists: false } }), {
    workspaceId: 'ws_1', 'profile.email': 'a@x', n: { $gte: 2, $lt: 5 }, tag: { $in: ['x'] }, gone: { $exists: false },
  });
});

test('$has is equality on the array field, or $all when combined with other conditions', () => {
  assert.equal(toMongoFilter({ workspaceId: 'w', tags: { $has: 'blue' } }), { workspaceId: 'w', tags: 'blue' });
  assert.equal(toMongoFilter({ workspaceId: 'w', tags: { $has: 'blue', $ne: 'red' } }), { workspaceId: 'w', tags: { $all: ['blue'], $ne: 'red' } });
});

test('$or maps recursively and an empty $or matches nothing instead of failing', () => {
  assert.equal(toMongoFilter({ workspaceId: 'w', $or: [{ a: 1 }, { b: { $gt: 2 } }] }), { workspaceId: 'w', $and: [{ $or: [{ a: 1 }, { b: { $gt: 2 } }] }] });
  assert.equal(toMongoFilter({ workspaceId: 'w', $or: [] }), { workspaceId: 'w', $and: [{ _id: { $in: [] } }] });
});

test('undefined stays a null condition instead of silently matching everything', () => {
  assert.equal(toMongoFilter({ workspaceId: 'w', deletedAt: undefined }), { workspaceId: 'w', deletedAt: null });
  assert.equal(toMongoFilter({ workspaceId: 'w', x: { $ne: undefined } }), { workspaceId: 'w', x: { $ne: null } });
});

test('operators outside the port and sub-document values are refused', () => {
  assert.throws(() => toMongoFilter({ workspaceId: 'w', name: { $regex: '.*' } }), /unsupported/);
  assert.throws(() => toMongoFilter({ workspaceId: 'w', $where: 'sleep(1000)' }), /bad field/);
  assert.throws(() => toMongoFilter({ workspaceId: 'w', profile: { email: 'a' } }), /unsupported/);
  assert.throws(() => toMongoFilter({ workspaceId: 'w', tags: ['a'] }), /cannot be compared/);
});

test('updates map to $set, $unset, $inc, $setOnInsert and $push with $each and a negative $slice', () => {
  assert.equal(toMongoUpdate({
    $set: { 'a.b': 1 }, $unset: ['c'], $inc: { n: 2 }, $setOnInsert: { createdAt: 5 },
    $push: { log: { value: 'x', slice: 3 }, all: { value: 1 }, none: { value: 2, slice: 0 } },
  }), {
    $set: { 'a.b': 1 }, $unset: { c: '' }, $inc: { n: 2 }, $setOnInsert: { createdAt: 5 },
    $push: { log: { $each: ['x'], $slice: -3 }, all: { $each: [1] }, none: { $each: [2], $slice: 0 } },
  });
  assert.equal(toMongoUpdate({}), { $set: {} });
  assert.throws(() => toMongoUpdate({ $set: { $where: 1 } }), /bad field/);
});

test('sorting is newest first by default and always ends with _id for stable pages', () => {
  assert.equal(toMongoSort(undefined), { _id: -1 });
  assert.equal(toMongoSort([['at', 1]]), { at: 1, _id: -1 });
  assert.equal(withBefore({ workspaceId: 'w' }, 'rec_5'), { $and: [{ workspaceId: 'w' }, { _id: { $lt: 'rec_5' } }] });
  assert.equal(withBefore({ workspaceId: 'w' }, undefined), { workspaceId: 'w' });
});

test('indexes: a workspace listing index first, unique ones kept, sparse ones as partial indexes', () => {
  assert.equal(indexDefinitions([
    { fields: [['workspaceId', 1], ['at', -1]] },
    { fields: [['tokenHash', 1]], unique: true, sparse: true },
  ]), [
    { key: { workspaceId: 1, _id: -1 }, name: 'ws_id' },
    { key: { workspaceId: 1, at: -1 }, name: 'workspaceId_1_at_-1' },
    { key: { tokenHash: 1 }, name: 'tokenHash_1_u_s', unique: true, partialFilterExpression: { tokenHash: { $exists: true } } },
  ]);
});

test('E11000 is recognised on single writes and bulk writes', () => {
  assert.ok(isDuplicateKey({ code: 11000 }));
  assert.ok(isDuplicateKey({ code: 65, writeErrors: [{ code: 11000 }] }));
  assert.not.ok(isDuplicateKey({ code: 121 }));
  assert.not.ok(isDuplicateKey(null));
});

test.run();
