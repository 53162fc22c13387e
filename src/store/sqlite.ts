import { createRequire } from 'node:module';

/**
 * The one SQLite driver of the embedded adapters. Node 20 and 22 use better-sqlite3; from Node 24 on, the
 * built-in node:sqlite is used instead, because better-sqlite3 12 (the last line that runs on Node 20)
 * aborts the process on Node 24 when its statements are garbage collected (its ObjectWrap cleanup hook,
 * WiseLibs/better-sqlite3#1515). Both run the same SQL (WAL, JSON functions, FTS5); this file evens out the
 * few API differences the adapters use.
 */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows become their first column's value. */
  pluck(): SqliteStatement;
}

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  /** Runs `PRAGMA <text>` and returns its rows. */
  pragma(text: string): unknown;
  /** Wraps fn in a transaction (nested calls become savepoints), like better-sqlite3's db.transaction. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  /** A transaction is open (BEGIN without COMMIT or ROLLBACK yet). */
  readonly inTransaction: boolean;
  readonly open: boolean;
  close(): void;
}

export const SQLITE_DRIVER: 'better-sqlite3' | 'node:sqlite' = Number(process.versions.node.split('.')[0]) >= 24 ? 'node:sqlite' : 'better-sqlite3';
const require = createRequire(import.meta.url);

/** 'primary' or 'unique' for a key clash (SQLITE_CONSTRAINT_PRIMARYKEY / _UNIQUE), else null. */
export function keyClash(err: unknown): 'primary' | 'unique' | null {
  const e = err as { code?: string; errcode?: number };
  if (e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.errcode === 1555) return 'primary';
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.errcode === 2067) return 'unique';
  return null;
}

/** The part of node:sqlite's DatabaseSync used here (its types ship only with @types/node 22+). */
interface NodeSqlite {
  exec(sql: string): void;
  prepare(sql: string): {
    run(...p: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
    get(...p: unknown[]): unknown;
    all(...p: unknown[]): unknown[];
    iterate(...p: unknown[]): IterableIterator<unknown>;
  };
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  close(): void;
}

export function openSqlite(file: string): SqliteDatabase {
  if (SQLITE_DRIVER === 'better-sqlite3') {
    const Database = require('better-sqlite3');
    const db = new Database(file);
    return {
      exec: (sql) => { db.exec(sql); },
      prepare: (sql) => db.prepare(sql),
      pragma: (text) => db.pragma(text),
      transaction: (fn) => db.transaction(fn),
      get inTransaction() { return db.inTransaction as boolean; },
      get open() { return db.open as boolean; },
      close: () => db.close(),
    };
  }
  const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (file: string) => NodeSqlite };
  const db = new DatabaseSync(file);
  let savepoints = 0;
  const wrap = (s: ReturnType<typeof db.prepare>, first = false): SqliteStatement => {
    const shape = (row: unknown) => (first && row && typeof row === 'object' ? Object.values(row)[0] : toBuffers(row));
    return {
      run: (...p) => { const r = s.run(...p); return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid }; },
      get: (...p) => shape(s.get(...p)),
      all: (...p) => s.all(...p).map(shape),
      *iterate(...p) { for (const row of s.iterate(...p)) yield shape(row); },
      pluck: () => wrap(s, true),
    };
  };
  return {
    exec: (sql) => db.exec(sql),
    prepare: (sql) => wrap(db.prepare(sql)),
    pragma: (text) => db.prepare(`PRAGMA ${text}`).all().map(toBuffers),
    transaction: (fn) => (...args) => {
      // Inside an open transaction (ours or a BEGIN run with exec), a savepoint, as better-sqlite3 does.
      const name = db.isTransaction ? `sp${++savepoints}` : null;
      db.exec(name ? `SAVEPOINT ${name}` : 'BEGIN');
      try {
        const out = fn(...args);
        db.exec(name ? `RELEASE ${name}` : 'COMMIT');
        return out;
      } catch (err) {
        db.exec(name ? `ROLLBACK TO ${name}; RELEASE ${name}` : 'ROLLBACK');
        throw err;
      }
    },
    get inTransaction() { return db.isTransaction; },
    get open() { return db.isOpen; },
    close: () => db.close(),
  };
}

/** node:sqlite returns BLOBs as Uint8Array; the adapters expect Buffers, as better-sqlite3 gives. */
function toBuffers(row: unknown): unknown {
  if (!row || typeof row !== 'object') return row;
  for (const [k, v] of Object.entries(row)) if (v instanceof Uint8Array && !Buffer.isBuffer(v)) (row as Record<string, unknown>)[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return row;
}
