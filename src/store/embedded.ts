import { keyClash, openSqlite, type SqliteDatabase, type SqliteStatement } from './sqlite.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { applyUpdate, equalityFields } from './apply-update.js';
import { startCheckpointer, type Checkpointer } from './embedded-checkpoint.js';
import { EmbeddedFileStore } from './embedded-files.js';
import { fieldExpr, whereClause } from './filter-sql.js';
import {
  DuplicateKeyError, UnscopedQueryError,
  type Collection, type CollectionSpec, type Doc, type DocumentStore, type Filter, type FindOptions, type ScopeOptions, type Update,
} from './types.js';

type Row = { id: string; doc: string };

/** Writes after which checkpoints move to a worker thread (small stores, such as tests', never start one). */
const CHECKPOINT_WORKER_AFTER_WRITES = 2000;

/**
 * The default document store: one SQLite file under DATA_DIR (WAL mode). A table per collection holds
 * (id, ws, doc JSON); indexes are expression indexes over json_extract. Writes are synchronous, so each
 * update is atomic within the process; synchronous=NORMAL in WAL mode keeps every acknowledged write across
 * a process crash (kill -9).
 */
export function openEmbeddedStore(dataDir: string): DocumentStore {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'service.db');
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // A busy store checkpoints in a worker (src/store/embedded-checkpoint.ts) instead of inside commits.
  let writes = 0;
  let checkpointer: Checkpointer | null = null;
  const wrote = () => {
    if (checkpointer || ++writes < CHECKPOINT_WORKER_AFTER_WRITES || !db.open) return;
    checkpointer = startCheckpointer(file);
    db.pragma('wal_autocheckpoint = 0');
  };
  const collections = new Map<string, EmbeddedCollection<Doc>>();
  const files = new EmbeddedFileStore(db, join(dataDir, 'files'));
  return {
    kind: 'embedded',
    files,
    collection<T extends Doc>(name: string, spec: CollectionSpec = {}) {
      let c = collections.get(name);
      if (!c) { c = new EmbeddedCollection<Doc>(db, name, spec, wrote); collections.set(name, c); }
      else if (spec.indexes?.length) c.ensureIndexes(spec);
      return c as unknown as Collection<T>;
    },
    async dropWorkspace(workspaceId) {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'c\\_%' ESCAPE '\\'").all() as { name: string }[];
      db.transaction(() => { for (const t of tables) db.prepare(`DELETE FROM "${t.name}" WHERE ws = ?`).run(workspaceId); })();
      await files.deleteWorkspace(workspaceId);
    },
    async close() {
      await checkpointer?.stop();
      if (db.open) db.close(); // the last connection to close checkpoints what is left
    },
  };
}

class EmbeddedCollection<T extends Doc> implements Collection<T> {
  private table: string;
  private stmts = new Map<string, SqliteStatement>();
  /** One transaction wrapper for the collection (better-sqlite3 builds several closures per transaction()). */
  private tx: (fn: () => void) => void;

  constructor(private db: SqliteDatabase, readonly name: string, spec: CollectionSpec, private wrote: () => void) {
    if (!/^[a-z][a-z0-9_]{0,60}$/.test(name)) throw new Error(`bad collection name: ${name}`);
    this.table = `c_${name}`;
    const run = db.transaction((fn: () => void) => fn());
    this.tx = (fn) => run(fn);
    db.exec(`CREATE TABLE IF NOT EXISTS "${this.table}" (id TEXT PRIMARY KEY, ws TEXT NOT NULL, doc TEXT NOT NULL) WITHOUT ROWID`);
    db.exec(`CREATE INDEX IF NOT EXISTS "${this.table}__ws" ON "${this.table}" (ws, id)`);
    this.ensureIndexes(spec);
  }

  /** Creates the spec's indexes (idempotent); a later opener of the collection may add its own. */
  ensureIndexes(spec: CollectionSpec): void {
    for (const ix of spec.indexes ?? []) {
      const cols = ix.fields.map(([f, d]) => `${fieldExpr(f)}${d === -1 ? ' DESC' : ''}`).join(', ');
      const ixName = `${this.table}__${ix.fields.map(([f]) => f.replace(/\./g, '_')).join('_')}${ix.unique ? '_u' : ''}`;
      const where = ix.sparse ? ` WHERE ${ix.fields.map(([f]) => `${fieldExpr(f)} IS NOT NULL`).join(' AND ')}` : '';
      this.db.exec(`CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${ixName}" ON "${this.table}" (${cols})${where}`);
    }
  }

  private stmt(sql: string): SqliteStatement {
    let s = this.stmts.get(sql);
    if (!s) { s = this.db.prepare(sql); this.stmts.set(sql, s); }
    return s;
  }

  private where(filter: Filter, opts: ScopeOptions | undefined, params: unknown[]): string {
    if (!opts?.crossWorkspace && typeof filter.workspaceId !== 'string') throw new UnscopedQueryError(this.name);
    return whereClause(filter, params) || '1';
  }

  private write(fn: () => void): void {
    try { fn(); this.wrote(); } catch (err) {
      // Only key clashes are duplicates; NOT NULL (a record without workspaceId) is a plain error.
      if (keyClash(err)) throw new DuplicateKeyError(this.name, (err as Error).message);
      throw err;
    }
  }

  private select(filter: Filter, opts: FindOptions = {}): Row[] {
    const params: unknown[] = [];
    let sql = `SELECT id, doc FROM "${this.table}" WHERE ${this.where(filter, opts, params)}`;
    if (opts.before) { sql += ' AND id < ?'; params.push(opts.before); }
    const sort = opts.sort ?? [['_id', -1]];
    sql += ` ORDER BY ${sort.map(([f, d]) => `${fieldExpr(f)} ${d === -1 ? 'DESC' : 'ASC'}`).join(', ')}`;
    if (!sort.some(([f]) => f === '_id')) sql += ', id DESC';
    if (opts.limit !== undefined || opts.skip !== undefined) { sql += ' LIMIT ? OFFSET ?'; params.push(opts.limit ?? -1, opts.skip ?? 0); }
    return this.stmt(sql).all(...params) as Row[];
  }

  /**
   * The usual update target, `{ workspaceId, _id }`, read by primary key without building a query; undefined
   * when the filter has another shape (null when it has this shape and nothing matches).
   */
  private byKey(filter: Filter): Row | null | undefined {
    const keys = Object.keys(filter);
    if (keys.length !== 2 || typeof filter._id !== 'string' || typeof filter.workspaceId !== 'string') return undefined;
    return (this.stmt(`SELECT id, doc FROM "${this.table}" WHERE id = ? AND ws = ?`).get(filter._id, filter.workspaceId) as Row | undefined) ?? null;
  }

  /** Stores an updated record; the ws column follows the record in case the update moved it. */
  private put(doc: T, id: string): void {
    if (doc._id !== id) throw new Error(`an update cannot change _id in ${this.name}`);
    if (typeof doc.workspaceId !== 'string') throw new Error(`an update cannot remove workspaceId in ${this.name}`);
    this.stmt(`UPDATE "${this.table}" SET ws = ?, doc = ? WHERE id = ?`).run(doc.workspaceId, JSON.stringify(doc), id);
  }

  async insertOne(doc: T): Promise<T> {
    this.write(() => this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?)`).run(doc._id, doc.workspaceId, JSON.stringify(doc)));
    return doc;
  }

  async insertMany(docs: T[]): Promise<void> {
    const ins = this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?)`);
    this.write(() => this.tx(() => { for (const d of docs) ins.run(d._id, d.workspaceId, JSON.stringify(d)); }));
  }

  async findById(workspaceId: string, id: string): Promise<T | null> {
    const row = this.stmt(`SELECT doc FROM "${this.table}" WHERE id = ? AND ws = ?`).get(id, workspaceId) as Row | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async findOne(filter: Filter, opts: FindOptions = {}): Promise<T | null> {
    const rows = this.select(filter, { ...opts, limit: 1 });
    return rows.length ? JSON.parse(rows[0].doc) : null;
  }

  async find(filter: Filter, opts: FindOptions = {}): Promise<T[]> {
    return this.select(filter, opts).map((r) => JSON.parse(r.doc));
  }

  async count(filter: Filter, opts?: ScopeOptions): Promise<number> {
    const params: unknown[] = [];
    const row = this.stmt(`SELECT COUNT(*) AS n FROM "${this.table}" WHERE ${this.where(filter, opts, params)}`).get(...params) as { n: number };
    return row.n;
  }

  async updateOne(filter: Filter, update: Update, opts: ScopeOptions & { upsert?: boolean } = {}): Promise<T | null> {
    let result: T | null = null;
    this.write(() => this.tx(() => {
      const key = this.byKey(filter);
      const row = key === undefined ? this.select(filter, { ...opts, limit: 1, sort: [['_id', 1]] })[0] : key;
      if (row) {
        result = applyUpdate(JSON.parse(row.doc) as T, update);
        this.put(result, row.id);
      } else if (opts.upsert) {
        result = applyUpdate(equalityFields(filter) as T, update, true);
        if (typeof result._id !== 'string' || typeof result.workspaceId !== 'string') throw new Error(`upsert into ${this.name} needs _id and workspaceId`);
        this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?)`).run(result._id, result.workspaceId, JSON.stringify(result));
      }
    }));
    return result;
  }

  async updateMany(filter: Filter, update: Update, opts?: ScopeOptions): Promise<number> {
    let n = 0;
    this.write(() => this.tx(() => {
      for (const row of this.select(filter, { ...opts, sort: [['_id', 1]] })) {
        this.put(applyUpdate(JSON.parse(row.doc) as T, update), row.id);
        n++;
      }
    }));
    return n;
  }

  async replaceOne(doc: T): Promise<void> {
    this.write(() => this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET ws = excluded.ws, doc = excluded.doc`)
      .run(doc._id, doc.workspaceId, JSON.stringify(doc)));
  }

  async deleteOne(filter: Filter, opts?: ScopeOptions): Promise<boolean> {
    const params: unknown[] = [];
    const where = this.where(filter, opts, params);
    const r = this.stmt(`DELETE FROM "${this.table}" WHERE id = (SELECT id FROM "${this.table}" WHERE ${where} LIMIT 1)`).run(...params);
    return r.changes > 0;
  }

  async deleteMany(filter: Filter, opts?: ScopeOptions): Promise<number> {
    const params: unknown[] = [];
    return this.stmt(`DELETE FROM "${this.table}" WHERE ${this.where(filter, opts, params)}`).run(...params).changes;
  }
}
