import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { indexSchemaFor, pointUuid, toQdrantFilter } from '../../src/store/qdrant-filter.js';

// The Qdrant adapter's translations, checked without a server (the contract suite covers behaviour when
// QDRANT_URL is set).

test('point ids are stable UUIDs derived from our string ids', () => {
  const a = pointUuid('chunk_01');
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(pointUuid('chunk_01'), a);
  assert.is.not(pointUuid('chunk_02'), a);
});

test('values become must/match and arrays become match any', () => {
  assert.equal(toQdrantFilter({ workspaceId: 'ws_1', sourceId: ['s1', 's2'], public: true, page: 3 }), {
    must: [
      { key: 'workspaceId', match: { value: 'ws_1' } },
      { key: 'sourceId', match: { any: ['s1', 's2'] } },
      { key: 'public', match: { value: true } },
      { key: 'page', match: { value: 3 } },
    ],
  });
});

test('fractions become a range on themselves and mixed lists become alternatives', () => {
  assert.equal(toQdrantFilter({ workspaceId: 'w', weight: 0.5 })?.must[1], { key: 'weight', range: { gte: 0.5, lte: 0.5 } });
  assert.equal(toQdrantFilter({ workspaceId: 'w', ref: ['a', 1] })?.must[1], {
    should: [{ key: 'ref', match: { any: ['a'] } }, { key: 'ref', match: { any: [1] } }],
  });
});

test('an empty any-of list can match nothing and a filter without workspace is refused', () => {
  assert.is(toQdrantFilter({ workspaceId: 'w', sourceId: [] }), null);
  assert.throws(() => toQdrantFilter({} as never), /workspaceId/);
});

test('payload index types follow the filter values', () => {
  assert.is(indexSchemaFor('x'), 'keyword');
  assert.is(indexSchemaFor([1, 2]), 'integer');
  assert.is(indexSchemaFor(0.5), 'float');
  assert.is(indexSchemaFor(false), 'bool');
});

test.run();
