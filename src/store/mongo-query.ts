import type { Filter, FindOptions, IndexSpec, Update } from './types.js';

/**
 * Pure translations from the store port to MongoDB query, update, sort and index documents. Kept apart from
 * the driver calls so they can be checked without a server (test/store/mongo-query.test.ts).
 */
type MongoDoc = Record<string, unknown>;

const OPS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists', '$has']);
const SAFE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

function checkField(field: string): void {
  if (!SAFE_PATH.test(field)) throw new Error(`bad field name in filter: ${field}`);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** Matches nothing: the equivalent of an empty `$or` (which MongoDB rejects). */
const NOTHING: MongoDoc = { _id: { $in: [] } };

export function toMongoFilter(filter: Filter): MongoDoc {
  const out: MongoDoc = {};
  const and: MongoDoc[] = [];
  for (const [field, value] of Object.entries(filter)) {
    if (field === '$or') {
      const alts = (value as Filter[]).map(toMongoFilter);
      and.push(alts.length ? { $or: alts } : NOTHING);
      continue;
    }
    checkField(field);
    if (value !== null && typeof value === 'object' && !isPlainObject(value)) throw new Error(`objects and arrays cannot be compared in a filter (${field})`);
    // undefined must not vanish from the query (ignoreUndefined would make it match everything).
    if (!isPlainObject(value)) { out[field] = value ?? null; continue; }
    const keys = Object.keys(value);
    // Only the port's operators are accepted, so that user data can never smuggle in $where, $regex or
    // $expr; a plain object would be a sub-document match, which the embedded adapter does not support.
    const bad = keys.find((k) => !OPS.has(k));
    if (bad || !keys.length) throw new Error(`unsupported filter condition ${bad ?? '{}'} on ${field}`);
    out[field] = toMongoCond(value);
  }
  if (and.length) out.$and = and;
  return out;
}

function toMongoCond(cond: Record<string, unknown>): unknown {
  const keys = Object.keys(cond);
  // The array field contains the value: plain equality on an array field in MongoDB.
  if (keys.length === 1 && keys[0] === '$has') return cond.$has;
  const out: MongoDoc = {};
  for (const [op, v] of Object.entries(cond)) {
    if (op === '$has') out.$all = [v];
    else if (op === '$exists') out.$exists = !!v;
    else out[op] = v === undefined ? null : v;
  }
  return out;
}

/** The port's update as a MongoDB update document (always with at least one operator). */
export function toMongoUpdate(update: Update): MongoDoc {
  const out: MongoDoc = {};
  if (update.$set && Object.keys(update.$set).length) out.$set = update.$set;
  if (update.$unset?.length) out.$unset = Object.fromEntries(update.$unset.map((k) => [k, '']));
  if (update.$inc && Object.keys(update.$inc).length) out.$inc = update.$inc;
  if (update.$setOnInsert && Object.keys(update.$setOnInsert).length) out.$setOnInsert = update.$setOnInsert;
  if (update.$push && Object.keys(update.$push).length) {
    out.$push = Object.fromEntries(Object.entries(update.$push).map(([k, { value, slice }]) => [
      k,
      // Keeping the last `slice` items is a negative $slice; 0 empties the array (-0 would be ambiguous).
      slice === undefined ? { $each: [value] } : { $each: [value], $slice: slice === 0 ? 0 : -slice },
    ]));
  }
  for (const group of Object.values(out)) for (const k of Object.keys(group as MongoDoc)) checkUpdatePath(k);
  // MongoDB 5+ accepts an empty $set; an update with no operators at all is rejected by the driver.
  if (Object.keys(out).length === 0) out.$set = {};
  return out;
}

function checkUpdatePath(path: string): void {
  if (!SAFE_PATH.test(path)) throw new Error(`bad field name in update: ${path}`);
}

/** Sort document: newest first by default; `_id` breaks ties so paging is stable. */
export function toMongoSort(sort: FindOptions['sort']): Record<string, 1 | -1> {
  const pairs = sort ?? [['_id', -1]];
  const out: Record<string, 1 | -1> = {};
  for (const [f, d] of pairs) { checkField(f); out[f] = d === -1 ? -1 : 1; }
  if (!('_id' in out)) out._id = -1;
  return out;
}

/** Adds the `before` cursor (`_id < before`) without disturbing a caller's own `_id` condition. */
export function withBefore(query: MongoDoc, before: string | undefined): MongoDoc {
  if (!before) return query;
  return Object.keys(query).length ? { $and: [query, { _id: { $lt: before } }] } : { _id: { $lt: before } };
}

export interface MongoIndex {
  key: Record<string, 1 | -1>;
  name: string;
  unique?: boolean;
  partialFilterExpression?: MongoDoc;
}

/** The default newest-first listing index per workspace, then the collection's own indexes. */
export function indexDefinitions(specs: IndexSpec[] = [], listFields: string[] = []): MongoIndex[] {
  const out: MongoIndex[] = [{ key: { workspaceId: 1, _id: -1 }, name: 'ws_id' }];
  // CollectionSpec.listFields: a list by workspace, newest first, is then covered by one index.
  if (listFields.length) {
    for (const f of listFields) checkField(f);
    out.push({ key: { workspaceId: 1, _id: -1, ...Object.fromEntries(listFields.map((f) => [f, 1 as const])) }, name: `list_${listFields.map((f) => f.replace(/\./g, '_')).join('_')}` });
  }
  for (const ix of specs) {
    const key: Record<string, 1 | -1> = {};
    for (const [f, d] of ix.fields) { checkField(f); key[f] = d === -1 ? -1 : 1; }
    const name = `${ix.fields.map(([f, d]) => `${f.replace(/\./g, '_')}_${d === -1 ? -1 : 1}`).join('_')}${ix.unique ? '_u' : ''}${ix.sparse ? '_s' : ''}`;
    const def: MongoIndex = { key, name };
    if (ix.unique) def.unique = true;
    // "Sparse" in the port means: only records where every indexed field exists take part.
    if (ix.sparse) def.partialFilterExpression = Object.fromEntries(ix.fields.map(([f]) => [f, { $exists: true }]));
    out.push(def);
  }
  return out;
}

/** E11000 from a single write, a bulk write or a findAndModify. */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; writeErrors?: Array<{ code?: unknown }> } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code === 11000 || e.code === 11001) return true;
  return Array.isArray(e.writeErrors) && e.writeErrors.some((w) => w.code === 11000);
}
