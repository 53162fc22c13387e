import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedFileStore } from './embedded-files.js';
import { encodedCount, type EncodedRecords } from './encoded.js';
import type { StoreRequest, WireError } from './embedded-wire.js';
import { openSqlite } from './sqlite.js';
import { ThreadClient } from './thread-client.js';
import {
  DuplicateKeyError, UnscopedQueryError,
  type Collection, type CollectionSpec, type Doc, type DocumentStore, type FieldValues, type Filter, type FindOptions, type ScopeOptions, type Update,
} from './types.js';

/**
 * The default document store: one SQLite file under DATA_DIR (WAL mode). Its statements run on a thread of
 * their own (src/store/embedded-thread.ts), so the event loop only sends requests and parses answers.
 * Requests run in the order they are made and each is atomic; a write is acknowledged after its transaction
 * committed (synchronous=NORMAL in WAL mode keeps it across a process crash, kill -9). File metadata uses a
 * second connection on this thread (rare, short writes).
 */
/** The embedded store, with its fault drill: while `code` is set (SQLITE_FULL: a full disk) every write fails. */
export interface EmbeddedStore extends DocumentStore {
  injectWriteFault(code: 'SQLITE_FULL' | 'SQLITE_IOERR' | null): Promise<void>;
}

export function openEmbeddedStore(dataDir: string): EmbeddedStore {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'service.db');
  // Opened here first, so a DATA_DIR that cannot hold the database fails at once, with its reason.
  const meta = openSqlite(file);
  meta.pragma('journal_mode = WAL');
  meta.pragma('busy_timeout = 5000');
  meta.pragma('secure_delete = ON'); // see the store thread
  const files = new EmbeddedFileStore(meta, join(dataDir, 'files'));
  const thread = new StoreThread(file);
  const collections = new Map<string, EmbeddedCollection<Doc>>();
  return {
    kind: 'embedded',
    files,
    collection<T extends Doc>(name: string, spec: CollectionSpec = {}) {
      if (!/^[a-z][a-z0-9_]{0,60}$/.test(name)) throw new Error(`bad collection name: ${name}`);
      let c = collections.get(name);
      // The thread creates the table (and the spec's indexes) before any later request runs.
      if (!c || spec.indexes?.length || spec.listFields?.length) void thread.request({ op: 'ensure', collection: name, spec }).catch(() => { /* the next call reports it */ });
      if (!c) { c = new EmbeddedCollection<Doc>(thread, name); collections.set(name, c); }
      return c as unknown as Collection<T>;
    },
    async dropWorkspace(workspaceId) {
      await thread.request({ op: 'drop', workspaceId });
      await files.deleteWorkspace(workspaceId);
      await thread.request({ op: 'scrub' });
    },
    async scrub() {
      await thread.request({ op: 'scrub' });
    },
    async injectWriteFault(code) {
      await thread.request({ op: 'fault', code });
    },
    async close() {
      await thread.close();
      if (meta.open) meta.close();
    },
  };
}

const toError = (e: WireError): Error =>
  e.kind === 'duplicate' ? Object.assign(new DuplicateKeyError(e.collection ?? '', ''), { message: e.message })
    : e.kind === 'unscoped' ? new UnscopedQueryError(e.collection ?? '')
      : Object.assign(new Error(e.message), e.code ? { code: e.code } : {});

/** The client side of the store thread. */
class StoreThread extends ThreadClient<StoreRequest> {
  constructor(file: string) {
    super('embedded-thread', 'embedded store', { file }, toError);
  }

  call(collection: string, method: string, args: unknown[]): Promise<unknown> {
    return this.request({ op: 'call', collection, method, args });
  }
}

const parse = <T>(json: unknown): T | null => (typeof json === 'string' ? JSON.parse(json) as T : null);

/** A collection as the rest of the server sees it: each call is one request to the store thread. */
class EmbeddedCollection<T extends Doc> implements Collection<T> {
  constructor(private thread: StoreThread, readonly name: string) {}

  async insertOne(doc: T): Promise<T> {
    await this.thread.call(this.name, 'insertOne', [doc._id, doc.workspaceId, JSON.stringify(doc)]);
    return doc;
  }

  async insertMany(docs: T[]): Promise<void> {
    await this.thread.call(this.name, 'insertMany', [docs.map((d) => [d._id, d.workspaceId, JSON.stringify(d)])]);
  }

  async findById(workspaceId: string, id: string): Promise<T | null> {
    return parse<T>(await this.thread.call(this.name, 'findById', [workspaceId, id]));
  }

  async findOne(filter: Filter, opts?: FindOptions): Promise<T | null> {
    return parse<T>(await this.thread.call(this.name, 'findOne', [filter, opts]));
  }

  async find(filter: Filter, opts?: FindOptions): Promise<T[]> {
    return ((await this.thread.call(this.name, 'find', [filter, opts])) as string[]).map((j) => JSON.parse(j) as T);
  }

  async findFields<K extends string>(filter: Filter, fields: readonly K[], opts?: FindOptions): Promise<Array<FieldValues<K>>> {
    const rows = JSON.parse(await this.thread.call(this.name, 'findFields', [filter, fields, opts]) as string) as unknown[][];
    return rows.map((values) => {
      const rec: Record<string, unknown> = { _id: values[0] };
      for (let i = 0; i < fields.length; i++) rec[fields[i]] = values[i + 1];
      return rec as FieldValues<K>;
    });
  }

  async count(filter: Filter, opts?: ScopeOptions): Promise<number> {
    return (await this.thread.call(this.name, 'count', [filter, opts])) as number;
  }

  async updateOne(filter: Filter, update: Update, opts?: ScopeOptions & { upsert?: boolean }): Promise<T | null> {
    return parse<T>(await this.thread.call(this.name, 'updateOne', [filter, update, opts]));
  }

  async updateMany(filter: Filter, update: Update, opts?: ScopeOptions): Promise<number> {
    return (await this.thread.call(this.name, 'updateMany', [filter, update, opts])) as number;
  }

  async replaceOne(doc: T): Promise<void> {
    await this.thread.call(this.name, 'replaceOne', [doc._id, doc.workspaceId, JSON.stringify(doc)]);
  }

  async replaceMany(docs: T[]): Promise<void> {
    if (docs.length) await this.thread.call(this.name, 'replaceMany', [docs.map((d) => [d._id, d.workspaceId, JSON.stringify(d)])]);
  }

  async replaceEncoded(rows: EncodedRecords): Promise<void> {
    if (encodedCount(rows)) await this.thread.call(this.name, 'replaceEncoded', [rows.bytes, rows.ends]);
  }

  async deleteOne(filter: Filter, opts?: ScopeOptions): Promise<boolean> {
    return (await this.thread.call(this.name, 'deleteOne', [filter, opts])) as boolean;
  }

  async deleteMany(filter: Filter, opts?: ScopeOptions): Promise<number> {
    return (await this.thread.call(this.name, 'deleteMany', [filter, opts])) as number;
  }
}
