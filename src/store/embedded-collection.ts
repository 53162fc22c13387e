import { applyUpdate, equalityFields } from './apply-update.js';
import { recordJson } from './encoded.js';
import { fieldExpr, fieldPath, whereClause } from './filter-sql.js';
import { keyClash, type SqliteDatabase, type SqliteStatement } from './sqlite.js';
import { DuplicateKeyError, UnscopedQueryError, type CollectionSpec, type Doc, type Filter, type FindOptions, type ScopeOptions, type Update } from './types.js';

type Row = { id: string; doc: string };

/** A field's value as JSON text (NULL when absent): the expression the list index holds and findFields reads. */
const valueExpr = (field: string) => `doc -> '$.${fieldPath(field)}'`;

/**
 * One collection of the embedded store, run on the store thread (src/store/embedded-thread.ts): a table per
 * collection holds (id, ws, doc JSON); indexes are expression indexes over json_extract. Every method is
 * synchronous and atomic; reads return the stored JSON text, which the caller's thread parses.
 */
export class EmbeddedCollection {
  private table: string;
  private stmts = new Map<string, SqliteStatement>();
  /** One transaction wrapper for the collection (better-sqlite3 builds several closures per transaction()). */
  private tx: (fn: () => void) => void;
  /** The list index (CollectionSpec.listFields): its name and the fields it holds. */
  private listIndex: { name: string; fields: Set<string> } | null = null;

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
    if (spec.listFields?.length) {
      // Named by its fields, so a changed list makes a new index (the old one is dropped).
      const name = `${this.table}__list__${spec.listFields.map((f) => fieldPath(f).replace(/\./g, '_')).join('__')}`;
      if (this.listIndex?.name === name) return;
      const indexes = this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`).all(this.table) as { name: string }[];
      for (const { name: old } of indexes) if (old.startsWith(`${this.table}__list__`) && old !== name) this.db.exec(`DROP INDEX "${old}"`);
      this.db.exec(`CREATE INDEX IF NOT EXISTS "${name}" ON "${this.table}" (ws, id, ${spec.listFields.map(valueExpr).join(', ')})`);
      this.listIndex = { name, fields: new Set(spec.listFields) };
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

  private select(filter: Filter, opts: FindOptions = {}, columns = 'id, doc', index?: string): Row[] {
    const params: unknown[] = [];
    let sql = `SELECT ${columns} FROM "${this.table}"${index ? ` INDEXED BY "${index}"` : ''} WHERE ${this.where(filter, opts, params)}`;
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

  /** Stores an updated record (returns its JSON); the ws column follows the record in case the update moved it. */
  private put(doc: Doc, id: string): string {
    if (doc._id !== id) throw new Error(`an update cannot change _id in ${this.name}`);
    if (typeof doc.workspaceId !== 'string') throw new Error(`an update cannot remove workspaceId in ${this.name}`);
    const json = JSON.stringify(doc);
    this.stmt(`UPDATE "${this.table}" SET ws = ?, doc = ? WHERE id = ?`).run(doc.workspaceId, json, id);
    return json;
  }

  /** `json` is the record as JSON text (the caller serialises it, so JSON rules apply exactly as written). */
  insertOne(id: string, ws: string, json: string): void {
    this.write(() => this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?)`).run(id, ws, json));
  }

  insertMany(rows: Array<[id: string, ws: string, json: string]>): void {
    const ins = this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?)`);
    this.write(() => this.tx(() => { for (const r of rows) ins.run(r[0], r[1], r[2]); }));
  }

  findById(workspaceId: string, id: string): string | null {
    const row = this.stmt(`SELECT doc FROM "${this.table}" WHERE id = ? AND ws = ?`).get(id, workspaceId) as Row | undefined;
    return row ? row.doc : null;
  }

  findOne(filter: Filter, opts: FindOptions = {}): string | null {
    const rows = this.select(filter, { ...opts, limit: 1 });
    return rows.length ? rows[0].doc : null;
  }

  find(filter: Filter, opts: FindOptions = {}): string[] {
    return this.select(filter, opts).map((r) => r.doc);
  }

  /**
   * The fields' values of each match as one JSON array of arrays (`[[_id, ...values], ...]`): SQLite reads each
   * value as JSON text, from the list index when it holds them all (a list of one workspace, newest first),
   * else out of each record; either way the records never cross to the event loop's thread.
   */
  findFields(filter: Filter, fields: string[], opts: FindOptions = {}): string {
    if (!fields.length) throw new Error(`findFields on ${this.name} needs at least one field`);
    const li = this.listIndex;
    const fromIndex = li && !opts.sort && !opts.crossWorkspace && Object.keys(filter).length === 1 && fields.every((f) => li.fields.has(f));
    const columns = `id, ${fields.map((f, i) => `${valueExpr(f)} AS v${i}`).join(', ')}`;
    const rows = this.select(filter, opts, columns, fromIndex ? li.name : undefined) as unknown as Array<Record<string, string | null>>;
    const out = rows.map((r) => `[${JSON.stringify(r.id)},${fields.map((_, i) => r[`v${i}`] ?? 'null').join(',')}]`);
    return `[${out.join(',')}]`;
  }

  count(filter: Filter, opts?: ScopeOptions): number {
    const params: unknown[] = [];
    const row = this.stmt(`SELECT COUNT(*) AS n FROM "${this.table}" WHERE ${this.where(filter, opts, params)}`).get(...params) as { n: number };
    return row.n;
  }

  /** Returns the record after the update as JSON text, or null when nothing matched (and no upsert). */
  updateOne(filter: Filter, update: Update, opts: ScopeOptions & { upsert?: boolean } = {}): string | null {
    let result: string | null = null;
    this.write(() => this.tx(() => {
      const key = this.byKey(filter);
      const row = key === undefined ? this.select(filter, { ...opts, limit: 1, sort: [['_id', 1]] })[0] : key;
      if (row) {
        result = this.put(applyUpdate(JSON.parse(row.doc) as Doc, update), row.id);
      } else if (opts.upsert) {
        const doc = applyUpdate(equalityFields(filter) as unknown as Doc, update, true);
        if (typeof doc._id !== 'string' || typeof doc.workspaceId !== 'string') throw new Error(`upsert into ${this.name} needs _id and workspaceId`);
        result = JSON.stringify(doc);
        this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?)`).run(doc._id, doc.workspaceId, result);
      }
    }));
    return result;
  }

  updateMany(filter: Filter, update: Update, opts?: ScopeOptions): number {
    let n = 0;
    this.write(() => this.tx(() => {
      for (const row of this.select(filter, { ...opts, sort: [['_id', 1]] })) {
        this.put(applyUpdate(JSON.parse(row.doc) as Doc, update), row.id);
        n++;
      }
    }));
    return n;
  }

  replaceOne(id: string, ws: string, json: string): void {
    this.replaceMany([[id, ws, json]]);
  }

  replaceMany(rows: Array<[id: string, ws: string, json: string]>): void {
    const put = this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET ws = excluded.ws, doc = excluded.doc`);
    this.write(() => this.tx(() => { for (const r of rows) put.run(r[0], r[1], r[2]); }));
  }

  /**
   * Records serialised by a worker, in shared memory (src/store/encoded.ts): each one's text is read here and its
   * id and workspace taken out of it by SQLite, so no record is built as an object on any thread.
   */
  replaceEncoded(bytes: Uint8Array, ends: Uint32Array): void {
    const put = this.stmt(`INSERT INTO "${this.table}" (id, ws, doc) VALUES (json_extract(?, '$._id'), json_extract(?, '$.workspaceId'), ?) ON CONFLICT(id) DO UPDATE SET ws = excluded.ws, doc = excluded.doc`);
    const rows = { bytes, ends };
    this.write(() => this.tx(() => {
      for (let i = 0; i < ends.length; i++) {
        const json = recordJson(rows, i);
        put.run(json, json, json);
      }
    }));
  }

  deleteOne(filter: Filter, opts?: ScopeOptions): boolean {
    const params: unknown[] = [];
    const where = this.where(filter, opts, params);
    const r = this.stmt(`DELETE FROM "${this.table}" WHERE id = (SELECT id FROM "${this.table}" WHERE ${where} LIMIT 1)`).run(...params);
    return r.changes > 0;
  }

  deleteMany(filter: Filter, opts?: ScopeOptions): number {
    const params: unknown[] = [];
    return this.stmt(`DELETE FROM "${this.table}" WHERE ${this.where(filter, opts, params)}`).run(...params).changes;
  }
}
