import { encodedCount, recordJson, type EncodedRecords } from './encoded.js';
import { splitOldHeadings } from './lexical-headings.js';
import type { LexicalEntry, LexicalScope } from './lexical-embedded.js';
import type { SqliteDatabase } from './sqlite.js';

/**
 * Workspace and source ids as one token each (the tokenizer would split `ws_01H…` into a phrase, and
 * checking a phrase reads positions for every row of the workspace).
 */
export const token = (prefix: string, id: string) => `${prefix}${id.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;

/**
 * A document's entries: objects, or serialised off the event loop (src/store/encoded.ts) as the store's passage
 * records are (each a LexicalEntry's fields with the id as `_id`).
 */
export type LexicalEntries = LexicalEntry[] | EncodedRecords;

/** The writes of the lexical index (src/store/lexical-embedded.ts), each one transaction; the count of entries touched. */
export interface LexicalWrites {
  upsert(entries: LexicalEntries): number;
  replaceDocument(workspaceId: string, documentId: string, entries: LexicalEntries): number;
  deleteWhere(scope: LexicalScope): number;
  setStamp(workspaceId: string, documentId: string, stamp: string | null): number;
  /** One step of the background heading split (src/store/lexical-headings.ts): 1 when the pass is over. */
  splitHeadings(): number;
}

export function scopeWhere(scope: LexicalScope, params: unknown[]): string {
  let where = 'ws = ?';
  params.push(scope.workspaceId);
  if (scope.sourceId) { where += ' AND source = ?'; params.push(scope.sourceId); }
  if (scope.documentId) { where += ' AND doc = ?'; params.push(scope.documentId); }
  return where;
}

type Encoded = Omit<LexicalEntry, 'id'> & { _id: string; heading?: string | null };

/** The writes over a connection to the index's file (on the lexical thread; on the caller's thread for an index in memory). */
export function lexicalWrites(db: SqliteDatabase): LexicalWrites {
  const findRid = db.prepare('SELECT rid FROM lex_meta WHERE id = ?').pluck();
  const delMeta = db.prepare('DELETE FROM lex_meta WHERE rid = ?');
  const delFts = db.prepare('DELETE FROM lex_fts WHERE rowid = ?');
  const insMeta = db.prepare('INSERT INTO lex_meta (id, ws, source, doc) VALUES (?, ?, ?, ?)');
  const insFts = db.prepare('INSERT INTO lex_fts (rowid, title, heading, body, ws, src) VALUES (?, ?, ?, ?, ?, ?)');
  const docRids = db.prepare('SELECT rid FROM lex_meta WHERE ws = ? AND doc = ?').pluck();
  const delStamp = db.prepare('DELETE FROM lex_docs WHERE doc = ?');
  const putStamp = db.prepare('INSERT OR REPLACE INTO lex_docs (doc, ws, stamp) VALUES (?, ?, ?)');

  const put = (e: LexicalEntry) => {
    const old = findRid.get(e.id) as number | undefined;
    if (old !== undefined) { delFts.run(old); delMeta.run(old); }
    const rid = insMeta.run(e.id, e.workspaceId, e.sourceId, e.documentId).lastInsertRowid;
    insFts.run(rid, e.title, e.heading ?? '', e.text, token('w', e.workspaceId), token('s', e.sourceId));
  };
  const write = (entries: LexicalEntries): number => {
    if (Array.isArray(entries)) { entries.forEach(put); return entries.length; }
    const n = encodedCount(entries);
    for (let i = 0; i < n; i++) {
      const r = JSON.parse(recordJson(entries, i)) as Encoded;
      put({ id: r._id, workspaceId: r.workspaceId, sourceId: r.sourceId, documentId: r.documentId, title: r.title, heading: r.heading ?? undefined, text: r.text });
    }
    return n;
  };
  const deleteRids = (rids: number[]) => { for (const rid of rids) { delFts.run(rid); delMeta.run(rid); } return rids.length; };
  const stmts = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const stmt = (sql: string) => { let s = stmts.get(sql); if (!s) { s = db.prepare(sql).pluck(); stmts.set(sql, s); } return s; };

  return {
    upsert: (entries) => db.transaction(() => write(entries))(),
    replaceDocument: (workspaceId, documentId, entries) => db.transaction(() => deleteRids(docRids.all(workspaceId, documentId) as number[]) + write(entries))(),
    deleteWhere(scope) {
      const params: unknown[] = [];
      const where = scopeWhere(scope, params);
      return db.transaction(() => deleteRids(stmt(`SELECT rid FROM lex_meta WHERE ${where}`).all(...params) as number[]))();
    },
    setStamp(workspaceId, documentId, stamp) {
      if (stamp === null) delStamp.run(documentId);
      else putStamp.run(documentId, workspaceId, stamp);
      return 0;
    },
    splitHeadings: () => (splitOldHeadings(db).done ? 1 : 0),
  };
}
