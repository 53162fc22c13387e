import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EmbeddedFileStore } from './embedded-files.js';
import type { StoreReply, StoreRequest, WireError } from './embedded-wire.js';
import { openSqlite } from './sqlite.js';
import {
  DuplicateKeyError, UnscopedQueryError,
  type Collection, type CollectionSpec, type Doc, type DocumentStore, type FieldValues, type Filter, type FindOptions, type ScopeOptions, type Update,
} from './types.js';

const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

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

type Pending = { resolve(v: unknown): void; reject(e: Error): void };

const toError = (e: WireError): Error =>
  e.kind === 'duplicate' ? Object.assign(new DuplicateKeyError(e.collection ?? '', ''), { message: e.message })
    : e.kind === 'unscoped' ? new UnscopedQueryError(e.collection ?? '')
      : Object.assign(new Error(e.message), e.code ? { code: e.code } : {});
type Request = StoreRequest extends infer R ? R extends { id: number } ? Omit<R, 'id'> : never : never;

/** The client side of the store thread: numbered requests, answers matched by number. */
class StoreThread {
  private worker: Worker;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private closed: Promise<void> | null = null;
  private broken: Error | null = null;

  constructor(private file: string) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    // Under tsx (tests, `npm run dev`) the thread runs the .ts source: a worker's entry does not go through the
    // loader hooks inherited from the parent, so the thread registers tsx's require hook itself.
    const entry = new URL(`./embedded-thread${EXT}`, import.meta.url);
    const options = { workerData: { file: this.file } };
    const w = EXT === '.ts'
      ? new Worker(`require(${JSON.stringify(createRequire(import.meta.url).resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(fileURLToPath(entry))});`, { eval: true, ...options })
      : new Worker(entry, options);
    w.unref();
    let answered = false;
    w.on('message', (replies: StoreReply[]) => { answered = true; this.settle(replies); });
    // A thread that dies fails what it had not answered; a new one takes the next requests (unless it died
    // before answering anything: then the database cannot be opened and every request fails with the reason).
    const fail = (why: string) => {
      const err = new Error(`the embedded store thread stopped (${why}); the request was not applied`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      if (this.worker !== w || this.closed) return;
      if (answered) this.worker = this.spawn();
      else this.broken = err;
    };
    w.on('error', (err) => fail(err.message));
    w.on('exit', (code) => { if (code !== 0 || this.pending.size) fail(`exit ${code}`); });
    return w;
  }

  private settle(replies: StoreReply[]): void {
    for (const r of replies) {
      const p = this.pending.get(r.id);
      if (!p) continue;
      this.pending.delete(r.id);
      if (r.ok) p.resolve(r.value);
      else p.reject(toError(r.error));
    }
    // The thread keeps the process alive only while it owes answers.
    if (this.pending.size === 0) this.worker.unref();
  }

  request(req: Request): Promise<unknown> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error('the embedded store is closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id } as StoreRequest);
    });
  }

  call(collection: string, method: string, args: unknown[]): Promise<unknown> {
    return this.request({ op: 'call', collection, method, args });
  }

  close(): Promise<void> {
    if (this.closed) return this.closed;
    if (this.broken) return (this.closed = Promise.resolve());
    const id = this.nextId++;
    this.closed = new Promise<void>((resolve) => {
      const w = this.worker;
      w.ref();
      this.pending.set(id, { resolve: () => resolve(), reject: () => resolve() });
      w.once('exit', () => resolve());
      w.postMessage({ op: 'close', id } satisfies StoreRequest);
    });
    return this.closed;
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

  async deleteOne(filter: Filter, opts?: ScopeOptions): Promise<boolean> {
    return (await this.thread.call(this.name, 'deleteOne', [filter, opts])) as boolean;
  }

  async deleteMany(filter: Filter, opts?: ScopeOptions): Promise<number> {
    return (await this.thread.call(this.name, 'deleteMany', [filter, opts])) as number;
  }
}
