import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Lexical (BM25) index port for knowledge chunks, and its embedded adapter: SQLite FTS5 with the porter
 * stemmer in DATA_DIR/lexical.db. The index is derived data: every entry can be rebuilt from the chunk
 * records, so it is also used beside MongoDB (see docs/knowledge.md).
 */
export interface LexicalEntry {
  id: string;
  workspaceId: string;
  sourceId: string;
  documentId: string;
  title: string;
  text: string;
}

export interface LexicalHit {
  id: string;
  /** BM25, higher is better (FTS5's bm25() negated). */
  score: number;
  /** How many of the query's terms this entry contains. */
  matchedTerms: number;
}

export interface LexicalScope {
  workspaceId: string;
  sourceId?: string;
  documentId?: string;
}

export interface LexicalIndex {
  /** Idempotent: an entry with the same id is replaced. */
  upsert(entries: LexicalEntry[]): Promise<void>;
  /** Terms are OR-ed and ranked by BM25 (title weighted twice the text). */
  search(workspaceId: string, terms: string[], opts: { sourceIds?: string[]; limit: number }): Promise<LexicalHit[]>;
  deleteWhere(scope: LexicalScope): Promise<number>;
  count(scope: LexicalScope): Promise<number>;
  close(): Promise<void>;
}

/** A term as an FTS5 string literal: no operator or column syntax can leak in from user text. */
const phrase = (t: string) => `"${t.replace(/"/g, '""')}"`;

export function openEmbeddedLexical(dataDir: string | null): LexicalIndex {
  let file = ':memory:';
  if (dataDir) { mkdirSync(dataDir, { recursive: true }); file = join(dataDir, 'lexical.db'); }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS lex_meta (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, ws TEXT NOT NULL, source TEXT NOT NULL, doc TEXT NOT NULL)`);
  db.exec('CREATE INDEX IF NOT EXISTS lex_meta_source ON lex_meta (ws, source)');
  db.exec('CREATE INDEX IF NOT EXISTS lex_meta_doc ON lex_meta (ws, doc)');
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS lex_fts USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2')`);

  const findRid = db.prepare('SELECT rid FROM lex_meta WHERE id = ?').pluck();
  const delMeta = db.prepare('DELETE FROM lex_meta WHERE rid = ?');
  const delFts = db.prepare('DELETE FROM lex_fts WHERE rowid = ?');
  const insMeta = db.prepare('INSERT INTO lex_meta (id, ws, source, doc) VALUES (?, ?, ?, ?)');
  const insFts = db.prepare('INSERT INTO lex_fts (rowid, title, body) VALUES (?, ?, ?)');
  const stmts = new Map<string, Database.Statement>();
  const stmt = (sql: string) => { let s = stmts.get(sql); if (!s) { s = db.prepare(sql); stmts.set(sql, s); } return s; };

  function scopeWhere(scope: LexicalScope, params: unknown[]): string {
    let where = 'ws = ?';
    params.push(scope.workspaceId);
    if (scope.sourceId) { where += ' AND source = ?'; params.push(scope.sourceId); }
    if (scope.documentId) { where += ' AND doc = ?'; params.push(scope.documentId); }
    return where;
  }

  return {
    async upsert(entries) {
      db.transaction(() => {
        for (const e of entries) {
          const old = findRid.get(e.id) as number | undefined;
          if (old !== undefined) { delFts.run(old); delMeta.run(old); }
          const rid = insMeta.run(e.id, e.workspaceId, e.sourceId, e.documentId).lastInsertRowid;
          insFts.run(rid, e.title, e.text);
        }
      })();
    },
    async search(workspaceId, terms, { sourceIds, limit }) {
      const uniq = [...new Set(terms.filter(Boolean))];
      if (uniq.length === 0 || limit <= 0 || (sourceIds && sourceIds.length === 0)) return [];
      const params: unknown[] = [uniq.map(phrase).join(' OR '), workspaceId];
      let sql = `SELECT m.id AS id, m.rid AS rid, bm25(lex_fts, 2.0, 1.0) AS s FROM lex_fts JOIN lex_meta m ON m.rid = lex_fts.rowid
        WHERE lex_fts MATCH ? AND m.ws = ?`;
      if (sourceIds) { sql += ` AND m.source IN (${sourceIds.map(() => '?').join(',')})`; params.push(...sourceIds); }
      sql += ' ORDER BY s LIMIT ?';
      params.push(limit);
      const rows = stmt(sql).all(...params) as Array<{ id: string; rid: number; s: number }>;
      if (rows.length === 0) return [];
      // Term coverage of the hits, one indexed lookup per term: tells "one common word matched" from an answer.
      const matched = new Map<number, number>(rows.map((r) => [r.rid, 0]));
      const inList = rows.map(() => '?').join(',');
      const cover = stmt(`SELECT rowid AS rid FROM lex_fts WHERE lex_fts MATCH ? AND rowid IN (${inList})`);
      for (const t of uniq) {
        for (const r of cover.all(phrase(t), ...rows.map((x) => x.rid)) as Array<{ rid: number }>) matched.set(r.rid, (matched.get(r.rid) ?? 0) + 1);
      }
      return rows.map((r) => ({ id: r.id, score: -r.s, matchedTerms: matched.get(r.rid) ?? 0 }));
    },
    async deleteWhere(scope) {
      const params: unknown[] = [];
      const where = scopeWhere(scope, params);
      let n = 0;
      db.transaction(() => {
        const rids = stmt(`SELECT rid FROM lex_meta WHERE ${where}`).pluck().all(...params) as number[];
        for (const rid of rids) { delFts.run(rid); delMeta.run(rid); }
        n = rids.length;
      })();
      return n;
    },
    async count(scope) {
      const params: unknown[] = [];
      return stmt(`SELECT COUNT(*) FROM lex_meta WHERE ${scopeWhere(scope, params)}`).pluck().get(...params) as number;
    },
    async close() { if (db.open) db.close(); },
  };
}
