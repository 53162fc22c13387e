import type { EncodedRecords } from './encoded.js';

/**
 * Storage ports. Two adapters each (embedded SQLite / MongoDB for documents and files; embedded exact
 * search / Qdrant for vectors), one contract suite per port (test/store/). Only src/store imports drivers.
 */

/** Every stored record: an id with a type prefix (`bot_…`) and the workspace it belongs to. */
export interface Doc {
  _id: string;
  workspaceId: string;
}

/** Conditions on one field. Field names may be dotted paths (`identity.email`). */
export interface Cond {
  $eq?: unknown;
  $ne?: unknown;
  $in?: unknown[];
  $nin?: unknown[];
  $gt?: unknown;
  $gte?: unknown;
  $lt?: unknown;
  $lte?: unknown;
  $exists?: boolean;
  /** The field is an array that contains this value. */
  $has?: unknown;
}

/**
 * Equality or conditions per field; `$or` takes alternatives. A filter must name workspaceId unless the call
 * says `crossWorkspace: true` (schedulers, lookups by secret) - every other query is scoped to one workspace.
 */
export type Filter = { [field: string]: unknown } & { $or?: Filter[] };

export interface Update {
  $set?: Record<string, unknown>;
  $unset?: string[];
  $inc?: Record<string, number>;
  /** Applied only when an upsert inserts. */
  $setOnInsert?: Record<string, unknown>;
  /** Appends to an array field, keeping the last `slice` items when given. */
  $push?: Record<string, { value: unknown; slice?: number }>;
}

export interface FindOptions {
  /** Newest first by default: ids sort by creation time. */
  sort?: Array<[field: string, direction: 1 | -1]>;
  limit?: number;
  /** Paging cursor: only records whose id sorts before this one (with the default newest-first order). */
  before?: string;
  skip?: number;
  crossWorkspace?: boolean;
}

/** One record as `findFields` reads it: its id and each named field's value by path (null when absent). */
export type FieldValues<K extends string> = { _id: string } & { [P in K]: unknown };

export interface ScopeOptions {
  crossWorkspace?: boolean;
}

export interface IndexSpec {
  fields: Array<[field: string, direction: 1 | -1]>;
  unique?: boolean;
  /** Unique only among records where every indexed field exists. */
  sparse?: boolean;
}

export interface Collection<T extends Doc> {
  readonly name: string;
  /** Fails with DuplicateKeyError on an id or unique-index clash. */
  insertOne(doc: T): Promise<T>;
  insertMany(docs: T[]): Promise<void>;
  findById(workspaceId: string, id: string): Promise<T | null>;
  findOne(filter: Filter, opts?: FindOptions): Promise<T | null>;
  find(filter: Filter, opts?: FindOptions): Promise<T[]>;
  /**
   * Only the named fields of each match (dotted paths allowed), for lists that show a few fields of large records:
   * `{ _id, [path]: value }`, null where a record has no such field. Reads like `find` otherwise.
   */
  findFields<K extends string>(filter: Filter, fields: readonly K[], opts?: FindOptions): Promise<Array<FieldValues<K>>>;
  count(filter: Filter, opts?: ScopeOptions): Promise<number>;
  /** Atomic: applies the update to the first match and returns the record after it, or null if none matched. */
  updateOne(filter: Filter, update: Update, opts?: ScopeOptions & { upsert?: boolean }): Promise<T | null>;
  updateMany(filter: Filter, update: Update, opts?: ScopeOptions): Promise<number>;
  /** Replaces the whole record with this id (insert if absent). */
  replaceOne(doc: T): Promise<void>;
  /** replaceOne for each record, in one write (embedded: one transaction; MongoDB: one bulk write). */
  replaceMany(docs: T[]): Promise<void>;
  /**
   * replaceMany of records serialised off the event loop (src/store/encoded.ts), for writes too large to build on
   * it (a large document's passages). Embedded: the store's thread reads them from shared memory, in one
   * transaction; MongoDB: decoded and written a slice at a time, the loop free between slices.
   */
  replaceEncoded(rows: EncodedRecords): Promise<void>;
  deleteOne(filter: Filter, opts?: ScopeOptions): Promise<boolean>;
  deleteMany(filter: Filter, opts?: ScopeOptions): Promise<number>;
}

export interface CollectionSpec {
  indexes?: IndexSpec[];
  /**
   * What a list of this collection shows, for large records listed often: these fields are kept in an index
   * beside workspaceId and _id, so `findFields` of them by workspace reads the index, not the records.
   */
  listFields?: string[];
}

/** Binary files (attachments, uploads, face images). Embedded: files under DATA_DIR; MongoDB: GridFS. */
export interface FileMeta {
  workspaceId: string;
  contentType: string;
  size: number;
  [key: string]: unknown;
}
export interface FileStore {
  put(id: string, data: Buffer, meta: FileMeta): Promise<void>;
  get(workspaceId: string, id: string): Promise<{ data: Buffer; meta: FileMeta } | null>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  deleteWorkspace(workspaceId: string): Promise<number>;
}

export interface DocumentStore {
  readonly kind: 'embedded' | 'mongo';
  collection<T extends Doc>(name: string, spec?: CollectionSpec): Collection<T>;
  readonly files: FileStore;
  /** Deletes every record of the workspace in every collection, and its files. */
  dropWorkspace(workspaceId: string): Promise<void>;
  /**
   * Makes what deletes removed unrecoverable from the store's own files, for erasure: call after the deletes.
   * The embedded store zeroes freed space as it deletes (secure_delete) and here empties its write-ahead log,
   * which still holds the old pages, into the database file. MongoDB manages its own files: nothing to do.
   */
  scrub(): Promise<void>;
  close(): Promise<void>;
}

export interface VectorPoint {
  id: string;
  vector: number[] | Float32Array;
  payload: { workspaceId: string; [key: string]: unknown };
}

export interface VectorHit {
  id: string;
  score: number;
  payload: Record<string, unknown>;
}

/** Filters on payload fields: a value for equality, an array for "any of". workspaceId is required. */
export type VectorFilter = { workspaceId: string; [field: string]: string | number | boolean | Array<string | number> };

export interface VectorStore {
  readonly kind: 'embedded' | 'qdrant';
  /** Creates the collection for vectors of this dimension if it does not exist (idempotent). */
  ensureCollection(name: string, dimension: number): Promise<void>;
  /** Idempotent: the same id replaces the old point. */
  upsert(name: string, points: VectorPoint[]): Promise<void>;
  /** Cosine similarity, best first. */
  search(name: string, vector: number[] | Float32Array, opts: { filter: VectorFilter; limit: number }): Promise<VectorHit[]>;
  deleteByFilter(name: string, filter: VectorFilter): Promise<void>;
  count(name: string, filter: VectorFilter): Promise<number>;
  close(): Promise<void>;
}

export class DuplicateKeyError extends Error {
  readonly code = 'duplicate_key';
  constructor(readonly collection: string, detail: string) {
    super(`duplicate key in ${collection}: ${detail}`);
  }
}

export class UnscopedQueryError extends Error {
  constructor(readonly collection: string) {
    super(`query on ${collection} without workspaceId; pass crossWorkspace: true if that is intended`);
  }
}
