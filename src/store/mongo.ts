import { MongoClient, type Collection as MongoCollection, type Db, type Document } from 'mongodb';
import { equalityFields } from './apply-update.js';
import { MongoFileStore } from './mongo-files.js';
import { indexDefinitions, isDuplicateKey, toMongoFilter, toMongoSort, toMongoUpdate, withBefore, type MongoIndex } from './mongo-query.js';
import { decodeRecords, encodedCount, type EncodedRecords } from './encoded.js';
import {
  DuplicateKeyError, UnscopedQueryError,
  type Collection, type CollectionSpec, type Doc, type DocumentStore, type FieldValues, type Filter, type FindOptions, type ScopeOptions, type Update,
} from './types.js';

/** Records of a replaceEncoded built and written at a time (about 0.5 MB of a large document's passages). */
const ENCODED_SLICE = 500;

const NAME = /^[a-z][a-z0-9_]{0,60}$/;
const MAJORITY = { w: 'majority' as const };

/**
 * The MongoDB document store (when MONGODB_URL is set). Writes wait for a majority of the replica set and
 * reads use majority read concern, so an acknowledged write survives a primary failover and a read never
 * sees data that could be rolled back. Record ids are the `_id`; the embedded adapter is the reference for
 * every behaviour (one contract suite runs against both).
 */
export async function openMongoStore(url: string, dbName: string): Promise<DocumentStore> {
  const client = new MongoClient(url, {
    appName: 'service-chat',
    writeConcern: MAJORITY,
    readConcern: { level: 'majority' },
    // Like JSON in the embedded adapter: an undefined field is absent, not null.
    ignoreUndefined: true,
  });
  await client.connect();
  const db = client.db(dbName);
  const collections = new Map<string, MongoStoreCollection<Doc>>();
  const files = new MongoFileStore(db);
  return {
    kind: 'mongo',
    files,
    collection<T extends Doc>(name: string, spec: CollectionSpec = {}) {
      let c = collections.get(name);
      if (!c) { c = new MongoStoreCollection<Doc>(db, name, spec); collections.set(name, c); }
      else if (spec.indexes?.length || spec.listFields?.length) c.addIndexes(spec);
      return c as unknown as Collection<T>;
    },
    async dropWorkspace(workspaceId) {
      // Every collection of ours (names without dots: GridFS and system collections have one).
      const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).filter((n) => NAME.test(n));
      for (const n of names) await db.collection(n).deleteMany({ workspaceId }, { writeConcern: MAJORITY });
      await files.deleteWorkspace(workspaceId);
    },
    // WiredTiger reuses the space of deleted documents and its journal is recycled; a deployment that must
    // guarantee physical erasure encrypts its storage (docs/operations.md).
    async scrub() {},
    async close() { await client.close(); },
  };
}

class MongoStoreCollection<T extends Doc> implements Collection<T> {
  private coll: MongoCollection<Document>;
  private ready: Promise<void>;

  constructor(db: Db, readonly name: string, spec: CollectionSpec) {
    if (!NAME.test(name)) throw new Error(`bad collection name: ${name}`);
    this.coll = db.collection(name);
    this.ready = ensureIndexes(this.coll, indexDefinitions(spec.indexes, spec.listFields));
    this.ready.catch(() => undefined);
  }

  /** A later opener's indexes: built after the first ones; operations wait for them too. */
  addIndexes(spec: CollectionSpec): void {
    const previous = this.ready;
    this.ready = previous.then(() => ensureIndexes(this.coll, indexDefinitions(spec.indexes, spec.listFields)));
    // Kept for every operation to await: a unique index that could not be built must not fail silently.
    this.ready.catch(() => undefined);
  }

  private query(filter: Filter, opts: ScopeOptions | undefined): Document {
    if (!opts?.crossWorkspace && typeof filter.workspaceId !== 'string') throw new UnscopedQueryError(this.name);
    return toMongoFilter(filter);
  }

  private async write<R>(fn: () => Promise<R>): Promise<R> {
    await this.ready;
    try { return await fn(); } catch (err) {
      if (isDuplicateKey(err)) throw new DuplicateKeyError(this.name, (err as Error).message);
      throw err;
    }
  }

  async insertOne(doc: T): Promise<T> {
    // A copy: the driver would otherwise be free to add fields to the caller's object.
    await this.write(() => this.coll.insertOne({ ...doc } as Document));
    return doc;
  }

  async insertMany(docs: T[]): Promise<void> {
    if (!docs.length) return;
    await this.write(() => this.coll.insertMany(docs.map((d) => ({ ...d }) as Document), { ordered: true }));
  }

  async findById(workspaceId: string, id: string): Promise<T | null> {
    await this.ready;
    return (await this.coll.findOne({ _id: id as never, workspaceId })) as T | null;
  }

  async findOne(filter: Filter, opts: FindOptions = {}): Promise<T | null> {
    const [doc] = await this.find(filter, { ...opts, limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, opts: FindOptions = {}): Promise<T[]> {
    const q = withBefore(this.query(filter, opts), opts.before);
    // MongoDB reads limit 0 as "no limit"; the port means no records.
    if (opts.limit !== undefined && opts.limit <= 0) return [];
    await this.ready;
    let cursor = this.coll.find(q).sort(toMongoSort(opts.sort));
    if (opts.skip) cursor = cursor.skip(opts.skip);
    if (opts.limit !== undefined) cursor = cursor.limit(opts.limit);
    return (await cursor.toArray()) as unknown as T[];
  }

  async findFields<K extends string>(filter: Filter, fields: readonly K[], opts: FindOptions = {}): Promise<Array<FieldValues<K>>> {
    const q = withBefore(this.query(filter, opts), opts.before);
    if (opts.limit !== undefined && opts.limit <= 0) return [];
    await this.ready;
    let cursor = this.coll.find(q, { projection: Object.fromEntries(fields.map((f) => [f, 1])) }).sort(toMongoSort(opts.sort));
    if (opts.skip) cursor = cursor.skip(opts.skip);
    if (opts.limit !== undefined) cursor = cursor.limit(opts.limit);
    return (await cursor.toArray()).map((doc) => {
      const rec: Record<string, unknown> = { _id: doc._id };
      for (const f of fields) rec[f] = f.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc) ?? null;
      return rec as FieldValues<K>;
    });
  }

  async count(filter: Filter, opts?: ScopeOptions): Promise<number> {
    const q = this.query(filter, opts);
    await this.ready;
    return this.coll.countDocuments(q);
  }

  async updateOne(filter: Filter, update: Update, opts: ScopeOptions & { upsert?: boolean } = {}): Promise<T | null> {
    const q = this.query(filter, opts);
    if (opts.upsert) {
      // Same rule as the embedded adapter: an upserted record needs its id and workspace from the filter or
      // the update, never a generated ObjectId.
      const base = { ...equalityFields(filter), ...update.$setOnInsert, ...update.$set } as Record<string, unknown>;
      if (typeof base._id !== 'string' || typeof base.workspaceId !== 'string') throw new Error(`upsert into ${this.name} needs _id and workspaceId`);
    }
    const run = () => this.write(() => this.coll.findOneAndUpdate(q, toMongoUpdate(update), {
      sort: { _id: 1 }, upsert: !!opts.upsert, returnDocument: 'after', includeResultMetadata: false,
    }));
    try {
      return ((await run()) as T | null) ?? null;
    } catch (err) {
      // Two upserts of one new id race: the loser's insert clashes. Once more, it finds and updates the
      // record the winner inserted (the server retries this itself only for filters on _id alone).
      if (!opts.upsert || !(err instanceof DuplicateKeyError)) throw err;
      return ((await run()) as T | null) ?? null;
    }
  }

  async updateMany(filter: Filter, update: Update, opts?: ScopeOptions): Promise<number> {
    const q = this.query(filter, opts);
    const r = await this.write(() => this.coll.updateMany(q, toMongoUpdate(update)));
    return r.matchedCount;
  }

  async replaceOne(doc: T): Promise<void> {
    await this.write(() => this.coll.replaceOne({ _id: doc._id as never }, { ...doc } as Document, { upsert: true }));
  }

  async replaceMany(docs: T[]): Promise<void> {
    if (!docs.length) return;
    const ops = docs.map((d) => ({ replaceOne: { filter: { _id: d._id as never }, replacement: { ...d } as Document, upsert: true } }));
    await this.write(() => this.coll.bulkWrite(ops, { ordered: false }));
  }

  async replaceEncoded(rows: EncodedRecords): Promise<void> {
    // The driver needs objects: built and written ENCODED_SLICE at a time, so no slice holds the loop long.
    for (let i = 0; i < encodedCount(rows); i += ENCODED_SLICE) {
      await this.replaceMany(decodeRecords<T>(rows, i, i + ENCODED_SLICE));
      await new Promise((r) => setImmediate(r));
    }
  }

  async deleteOne(filter: Filter, opts?: ScopeOptions): Promise<boolean> {
    const q = this.query(filter, opts);
    await this.ready;
    return (await this.coll.deleteOne(q)).deletedCount > 0;
  }

  async deleteMany(filter: Filter, opts?: ScopeOptions): Promise<number> {
    const q = this.query(filter, opts);
    await this.ready;
    return (await this.coll.deleteMany(q)).deletedCount;
  }
}

/**
 * Creates each index if missing. An index whose definition changed in code (same name, other options or
 * keys: codes 85/86) is dropped and built again, so a deployment follows the CollectionSpec.
 */
async function ensureIndexes(coll: MongoCollection<Document>, defs: MongoIndex[]): Promise<void> {
  for (const { key, ...options } of defs) {
    try {
      await coll.createIndex(key, options);
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== 85 && code !== 86) throw err;
      await coll.dropIndex(options.name);
      await coll.createIndex(key, options);
    }
  }
}

/** Drops a whole database: for test runs (a fresh database each) and operators' clean-up scripts. */
export async function dropMongoDatabase(url: string, dbName: string): Promise<void> {
  const client = new MongoClient(url, { writeConcern: MAJORITY });
  try {
    await client.connect();
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}
