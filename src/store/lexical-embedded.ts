import { planHeadingSplit, runHeadingSplit } from './lexical-headings.js';
import { bestCorrection, correctionPrefixes, idf, norm, normWords } from './lexical-terms.js';
import type { LexicalRequest } from './lexical-thread.js';
import { lexicalWrites, scopeWhere, token, type LexicalEntries, type LexicalWrites } from './lexical-writes.js';
import { openSqlite, type SqliteStatement } from './sqlite.js';
import { ThreadClient } from './thread-client.js';
import { randomBytes } from 'node:crypto';
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
  /** The document's title. */
  title: string;
  /** The passage's heading path ("Install > On Linux"), a field of its own weight; absent: none. */
  heading?: string;
  text: string;
}

export interface LexicalHit {
  id: string;
  /** The entry's document. */
  documentId: string;
  /** BM25, higher is better (FTS5's bm25() negated). */
  score: number;
  /** How many of the query's terms this entry contains (worked out for the best COVERED_HITS; 0 for the rest). */
  matchedTerms: number;
  /**
   * The share of the query's weight this entry contains, 0 to 1, each term weighted by its IDF (a term
   * found nowhere, even after typo correction, weighs as much as the query's rarest term found): 1 means every
   * distinctive word of the question is in the passage. Worked out for the best COVERED_HITS; 0 for the rest.
   */
  coverage: number;
  /**
   * Coverage counted over the query's terms found somewhere in the index only (0 to 1): for a question in
   * another language than the documents', whose own words are unknown to them answerable or not, the share of
   * the words the documents do know (src/knowledge/fusion.ts). Worked out for the best COVERED_HITS; 0 for the rest.
   */
  knownCoverage: number;
  /**
   * The share of the query's terms found nowhere in the index, even after typo correction (the same for every
   * hit of one search): most words of an English question unknown to the documents mark a question about
   * something else (src/knowledge/fusion.ts).
   */
  unknownShare: number;
  /**
   * The smallest share of the index's entries holding one of the query's terms this entry contains (0 to 1; 1
   * when it contains none): how specific the passage's best evidence is. A question that meets the documents
   * only on words found everywhere ("client", "send") shares vocabulary with them, not a topic. Counted against
   * at least SHARE_MIN_ENTRIES entries: in a small index every word is in a large share of it.
   */
  rarestShare: number;
  /**
   * Coverage for ordering (src/knowledge/fusion.ts rerankLexical): as `coverage`, but a query term missing from
   * the entry and found in a neighbouring passage of the same document counts NEIGHBOUR_WEIGHT (the question's
   * words split over two passages of one section). Neighbours are read for the best NEIGHBOUR_HITS; below them it
   * is `coverage`, and 0 past COVERED_HITS.
   */
  contextCoverage: number;
}

export interface LexicalScope {
  workspaceId: string;
  sourceId?: string;
  documentId?: string;
}

export interface LexicalIndex {
  /** Idempotent: an entry with the same id is replaced. */
  upsert(entries: LexicalEntries): Promise<void>;
  /**
   * A document's entries become these, at once: a search meanwhile finds the old passages or the new ones, never
   * neither (a document reindexed while visitors ask about it). Entries serialised by a worker (a large document's
   * passage records) are indexed without being built as objects on the event loop.
   */
  replaceDocument(workspaceId: string, documentId: string, entries: LexicalEntries): Promise<void>;
  /** Terms are OR-ed and ranked by BM25 (heading path weighted three times the text, title once). */
  search(workspaceId: string, terms: string[], opts: { sourceIds?: string[]; limit: number }): Promise<LexicalHit[]>;
  deleteWhere(scope: LexicalScope): Promise<number>;
  count(scope: LexicalScope): Promise<number>;
  close(): Promise<void>;
}

/**
 * What a replica of the store's chunk records keeps beside the index (src/knowledge/lexical-replica.ts): the
 * file's own random id, the same for every process that opens it, and which store version of each document
 * the file holds.
 */
export interface LexicalStamps {
  readonly fileId: string;
  /** Every document with entries or a stamp; stamp null: entries written before stamps were kept. */
  stamps(): Array<{ workspaceId: string; documentId: string; stamp: string | null }>;
  stampOf(documentId: string): string | null;
  /** Written in order with the index's other writes. */
  setStamp(workspaceId: string, documentId: string, stamp: string | null): Promise<void>;
}

/** A term as an FTS5 string literal: no operator or column syntax can leak in from user text. */
const phrase = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** Terms found in more than this share of all entries add little to BM25 but cost a scan each. */
const COMMON_SHARE = 0.015;
/** The rarest terms kept per query (every term of an ordinary question; queryTerms keeps at most 32). */
const MAX_TERMS = 32;
/** Hits whose coverage is worked out (a search asks for at most 50 candidates; only the first ones are shown). */
const COVERED_HITS = 30;
/** Unknown words of one query looked up for a typo correction; the cache of corrections holds at most 10,000. */
const MAX_CORRECTIONS = 8;
/** The fewest entries rarestShare is counted against (a word in 3 of 5 passages says little about it). */
const SHARE_MIN_ENTRIES = 100;
/** Below this many entries per term nothing is pruned: small knowledge bases are fast anyway. */
const MIN_COMMON_ROWS = 500;
/**
 * How much a query term found only in a neighbouring passage of the same document counts in `contextCoverage`
 * (issue 39: 0.25, 0.5, 0.75 and 1 measured on the five evaluation sets, docs/knowledge.md).
 */
export const NEIGHBOUR_WEIGHT = 0.75;
/**
 * The best hits whose neighbours are read (two more entries each): the first 5 gave a little less on three sets,
 * 8 one question less, 10 the same as all 30 covered hits on all five, at a fifth of the reads.
 */
const NEIGHBOUR_HITS = 10;
/**
 * BM25 weights of the title, heading path and body columns (the filter columns do not score). The heading path
 * also starts the body (it is part of the excerpt). Before issue 39 title and heading path were one column of
 * weight 2; measured on the five evaluation sets: title 1-3 x heading 1-3 (docs/knowledge.md).
 */
const COLUMN_WEIGHTS = 'bm25(1.0, 3.0, 1.0, 0.0, 0.0)';

interface EntryText { title: string; heading: string; body: string }

/**
 * Layout: one FTS5 table whose ws and src columns are indexed too, so workspace and source filters are part
 * of the MATCH expression and the query takes FTS5's `ORDER BY rank LIMIT n` path without a join.
 * lex_meta maps our string ids to FTS rowids. Writes run on a thread of their own (src/store/lexical-thread.ts);
 * searches, counts and stamps are read here, on a connection that never writes. An index in memory (tests: no
 * data directory) is one connection, written here.
 */
export function openEmbeddedLexical(dataDir: string | null, opts: { onMigrationError?: (err: unknown) => void } = {}): LexicalIndex & LexicalStamps {
  let file = ':memory:';
  if (dataDir) { mkdirSync(dataDir, { recursive: true }); file = join(dataDir, 'lexical.db'); }
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000'); // the workers of a scale-out group share this file
  db.exec(`CREATE TABLE IF NOT EXISTS lex_meta (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, ws TEXT NOT NULL, source TEXT NOT NULL, doc TEXT NOT NULL)`);
  db.exec('CREATE INDEX IF NOT EXISTS lex_meta_source ON lex_meta (ws, source)');
  db.exec('CREATE INDEX IF NOT EXISTS lex_meta_doc ON lex_meta (ws, doc)');
  const layout = createOrMigrateFts(db);

  db.exec('CREATE TABLE IF NOT EXISTS lex_info (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const oldHeadings = planHeadingSplit(db, layout === 'created');
  db.exec('CREATE TABLE IF NOT EXISTS lex_docs (doc TEXT PRIMARY KEY, ws TEXT NOT NULL, stamp TEXT NOT NULL)');
  db.prepare("INSERT OR IGNORE INTO lex_info (key, value) VALUES ('file_id', ?)").run(randomBytes(8).toString('hex'));
  const fileId = db.prepare("SELECT value FROM lex_info WHERE key = 'file_id'").pluck().get() as string;
  const idOf = db.prepare('SELECT id, doc FROM lex_meta WHERE rid = ?');
  const textOf = db.prepare('SELECT title, heading, body FROM lex_fts WHERE rowid = ?');
  const docOfRid = db.prepare('SELECT doc FROM lex_meta WHERE rid = ?').pluck();
  const entryText = (rid: number) => textOf.get(rid) as EntryText;
  const top = db.prepare('SELECT rowid AS rid, rank AS s FROM lex_fts WHERE lex_fts MATCH ? ORDER BY rank LIMIT ?');
  const countMatch = db.prepare('SELECT COUNT(*) FROM lex_fts WHERE lex_fts MATCH ?').pluck();
  const countAll = db.prepare('SELECT COUNT(*) FROM lex_meta').pluck();
  const metaOf = db.prepare('SELECT ws, source FROM lex_meta WHERE rid = ?');
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_vocab USING fts5vocab(main, lex_fts, col)`);
  // A range of the vocabulary by prefix is a seek, not a scan (a full scan takes ~200 ms at 100,000 chunks).
  const vocabRange = db.prepare(`SELECT term, doc FROM temp.lex_vocab WHERE term >= ? AND term < ? AND col IN ('title', 'heading', 'body') LIMIT 5000`);
  const stmts = new Map<string, SqliteStatement>();
  const stmt = (sql: string) => { let s = stmts.get(sql); if (!s) { s = db.prepare(sql); stmts.set(sql, s); } return s; };

  // Document frequencies over the whole index (a pruning heuristic: need not be exact), dropped after enough
  // writes to have moved them; row counts per scope, dropped on every write.
  let dfCache = new Map<string, number>();
  let corrections = new Map<string, { term: string; df: number } | null>();
  let writesSinceDf = 0;
  const counts = new Map<string, number>();
  const df = (term: string): number => {
    let n = dfCache.get(term);
    if (n === undefined) { n = countMatch.get(`{title heading body} : ${phrase(term)}`) as number; dfCache.set(term, n); }
    return n;
  };
  const correct = (word: string) => {
    if (!corrections.has(word)) {
      if (corrections.size >= 10_000) corrections = new Map();
      const rows = correctionPrefixes(word).flatMap((p) => vocabRange.all(p, p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1)) as Array<{ term: string; doc: number }>);
      corrections.set(word, bestCorrection(word, rows));
    }
    return corrections.get(word)!;
  };
  const counted = (key: string, fn: () => number) => { let n = counts.get(key); if (n === undefined) { n = fn(); counts.set(key, n); } return n; };
  // Another process of the group committed (data_version moved): counts and frequencies kept here are stale.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  const fresh = () => {
    const v = dataVersion.get();
    if (v !== seenVersion) { seenVersion = v; counts.clear(); dfCache = new Map(); corrections = new Map(); }
  };
  const wrote = (n: number) => {
    // The writer's own commit moved data_version too: it is counted here, as a write of this process, not as another's.
    seenVersion = dataVersion.get();
    counts.clear();
    writesSinceDf += n;
    if (writesSinceDf > 2000 || dfCache.size > 100_000) { dfCache = new Map(); corrections = new Map(); writesSinceDf = 0; }
  };

  const writer = dataDir ? threadWriter(file) : inlineWriter(lexicalWrites(db));
  // Passages of the layout before issue 39 get their heading field in the background (lexical-headings.ts), by the
  // writer, one step at a time between the index's other writes.
  const headings = oldHeadings ? runHeadingSplit(async () => (await writer.run('splitHeadings')) === 1, opts.onMigrationError ?? (() => {})) : null;
  const written = async (n: Promise<number>) => { wrote(await n); };

  return {
    upsert: (entries) => written(writer.run('upsert', entries)),
    replaceDocument: (workspaceId, documentId, entries) => written(writer.run('replaceDocument', workspaceId, documentId, entries)),
    async search(workspaceId, terms, { sourceIds, limit }) {
      fresh();
      const uniq = [...new Set(terms.filter(Boolean))];
      if (uniq.length === 0 || limit <= 0 || (sourceIds && sourceIds.length === 0)) return [];
      const all = counted('', () => countAll.get() as number);
      const inScope = counted(`${workspaceId}\n${sourceIds?.join(',') ?? ''}`, () => {
        const params: unknown[] = [workspaceId];
        let where = 'ws = ?';
        if (sourceIds) { where += ` AND source IN (${sourceIds.map(() => '?').join(',')})`; params.push(...sourceIds); }
        return stmt(`SELECT COUNT(*) FROM lex_meta WHERE ${where}`).pluck().get(...params) as number;
      });
      if (inScope === 0) return [];
      // A word found nowhere is most likely a typo: the closest vocabulary word stands in for it.
      let corrected = 0;
      const words = uniq.map((t) => {
        const n = df(t);
        if (n > 0) return { t, n, keys: [norm(t)] };
        // A long query of unknown words (pasted text, another script) costs at most MAX_CORRECTIONS lookups.
        const fix = corrected++ < MAX_CORRECTIONS ? correct(t) : null;
        return fix ? { t: fix.term, n: df(fix.term) || fix.df, keys: [norm(t), norm(fix.term)] } : { t, n: 0, keys: [norm(t)] };
      });
      // A word found nowhere weighs as much as the question's rarest word found: enough that a question about
      // something the documents never mention scores low, not so much that one stray word sinks the rest.
      const rarest = Math.max(0, ...words.filter((w) => w.n > 0).map((w) => idf(w.n, all)));
      const weights = words.map((w) => (w.n > 0 ? idf(w.n, all) : rarest || idf(0, all)));
      const byRarity = words.filter((x) => x.n > 0).sort((a, b) => a.n - b.n);
      if (byRarity.length === 0) return [];
      const rare = byRarity.filter((x) => x.n <= Math.max(MIN_COMMON_ROWS, all * COMMON_SHARE)).slice(0, MAX_TERMS);
      const match = `{title heading body} : (${(rare.length ? rare : byRarity.slice(0, 1)).map((x) => phrase(x.t)).join(' OR ')})`;
      let filter = `ws : ${token('w', workspaceId)}`;
      if (sourceIds) filter += ` AND src : (${sourceIds.map((id) => token('s', id)).join(' OR ')})`;
      const ranked = (m: string, n: number) => top.all(m, n) as Array<{ rid: number; s: number }>;
      // A filter in the MATCH reads the scope's whole token list: cheap for a small scope, costly for a
      // large one. So: the whole index in scope -> no filter; most of it -> filter the best rows afterwards.
      let rows: Array<{ rid: number; s: number }>;
      if (inScope === all) rows = ranked(match, limit);
      else if (inScope * 2 >= all) {
        const wide = ranked(match, limit * 4);
        rows = wide.filter((r) => {
          const m = metaOf.get(r.rid) as { ws: string; source: string } | undefined;
          return !!m && m.ws === workspaceId && (!sourceIds || sourceIds.includes(m.source));
        }).slice(0, limit);
        if (rows.length < limit && wide.length === limit * 4) rows = ranked(`${match} AND ${filter}`, limit);
      } else rows = ranked(`${match} AND ${filter}`, limit);
      const total = weights.reduce((a, b) => a + b, 0);
      const knownTotal = weights.reduce((sum, w, k) => sum + (words[k].n > 0 ? w : 0), 0);
      const unknownShare = Number((words.filter((w) => w.n === 0).length / words.length).toFixed(4));
      const keys = words.map((w) => w.keys);
      return rows.map((r, i) => {
        // Coverage counts every query term (common ones too), read from the best entries only.
        const has = i < COVERED_HITS ? contains(entryText(r.rid), keys) : [];
        const got = has.reduce((sum, h, k) => sum + (h ? weights[k] : 0), 0);
        // Neighbours: a document's entries are written in order in one transaction, so its passages have
        // consecutive rowids (checked by document: the rowid beside may belong to another).
        const meta = idOf.get(r.rid) as { id: string; doc: string };
        let contextGot = got;
        if (i < NEIGHBOUR_HITS && has.some((h) => !h)) {
          // Only the terms the passage lacks are looked for in its neighbours.
          const missing = has.flatMap((h, k) => (h ? [] : [k]));
          const near = [r.rid - 1, r.rid + 1].filter((x) => docOfRid.get(x) === meta.doc).map((x) => contains(entryText(x), missing.map((k) => keys[k])));
          contextGot = got + missing.reduce((sum, k, j) => sum + (near.some((n) => n[j]) ? NEIGHBOUR_WEIGHT * weights[k] : 0), 0);
        }
        const rarest = Math.min(1, ...words.filter((w, k) => has[k] && w.n > 0).map((w) => w.n / Math.max(all, SHARE_MIN_ENTRIES)));
        return { id: meta.id, documentId: meta.doc, score: -r.s, matchedTerms: has.filter(Boolean).length, coverage: total ? Number((got / total).toFixed(4)) : 0, contextCoverage: total ? Number((contextGot / total).toFixed(4)) : 0, knownCoverage: knownTotal ? Number(Math.min(1, got / knownTotal).toFixed(4)) : 0, unknownShare, rarestShare: Number(rarest.toFixed(4)) };
      });
    },
    async deleteWhere(scope) {
      const n = await writer.run('deleteWhere', scope);
      wrote(n);
      return n;
    },
    async count(scope) {
      fresh();
      const params: unknown[] = [];
      return stmt(`SELECT COUNT(*) FROM lex_meta WHERE ${scopeWhere(scope, params)}`).pluck().get(...params) as number;
    },
    async close() {
      headings?.stop();
      await writer.close();
      if (db.open) db.close();
    },
    fileId,
    stamps() {
      const out = new Map<string, { workspaceId: string; documentId: string; stamp: string | null }>();
      for (const r of stmt('SELECT DISTINCT ws, doc FROM lex_meta').all() as Array<{ ws: string; doc: string }>) out.set(r.doc, { workspaceId: r.ws, documentId: r.doc, stamp: null });
      for (const r of stmt('SELECT ws, doc, stamp FROM lex_docs').all() as Array<{ ws: string; doc: string; stamp: string }>) out.set(r.doc, { workspaceId: r.ws, documentId: r.doc, stamp: r.stamp });
      return [...out.values()];
    },
    stampOf(documentId) { return (stmt('SELECT stamp FROM lex_docs WHERE doc = ?').pluck().get(documentId) as string | undefined) ?? null; },
    async setStamp(workspaceId, documentId, stamp) { await writer.run('setStamp', workspaceId, documentId, stamp); },
  };
}

interface Writer {
  run<K extends keyof LexicalWrites>(op: K, ...args: Parameters<LexicalWrites[K]>): Promise<number>;
  close(): Promise<void>;
}

function threadWriter(file: string): Writer {
  const thread = new ThreadClient<LexicalRequest>('lexical-thread', 'lexical index writer', { file }, (e) => Object.assign(new Error(e.message), e.code ? { code: e.code } : {}));
  return {
    run: (op, ...args) => thread.request({ op, args } as never) as Promise<number>,
    close: () => thread.close(),
  };
}

function inlineWriter(writes: LexicalWrites): Writer {
  return {
    run: async (op, ...args) => (writes[op] as (...a: unknown[]) => number)(...args),
    close: async () => {},
  };
}

/**
 * The FTS5 table, created with its columns and weights, or migrated from the layout before issue 39 (title, body:
 * the title column held the document title and the heading path together). FTS5 cannot add a column, so the
 * old table is copied into a new one in one transaction: old rows keep their text (title and heading path in
 * the title column, an empty heading) and are found as before; their heading path is then moved to its own
 * field in the background (lexical-headings.ts), or by a reindex of the document, whichever comes first.
 */
function createOrMigrateFts(db: ReturnType<typeof openSqlite>): 'created' | 'migrated' | 'current' {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'lex_fts'").pluck().get() as string | undefined;
  const create = (name: string) => {
    db.exec(`CREATE VIRTUAL TABLE ${name} USING fts5(title, heading, body, ws, src, tokenize = 'porter unicode61 remove_diacritics 2')`);
    db.exec(`INSERT INTO ${name} (${name}, rank) VALUES ('rank', '${COLUMN_WEIGHTS}')`);
  };
  if (!sql) { create('lex_fts'); return 'created'; }
  if (/\bheading\b/.test(sql)) return 'current';
  db.transaction(() => {
    create('lex_fts_v2');
    db.exec(`INSERT INTO lex_fts_v2 (rowid, title, heading, body, ws, src) SELECT rowid, title, '', body, ws, src FROM lex_fts`);
    db.exec('DROP TABLE lex_fts');
    db.exec('ALTER TABLE lex_fts_v2 RENAME TO lex_fts');
  })();
  return 'migrated';
}

/**
 * Which terms occur in the entry: the same normal form on both sides, or a shared start (standing in for
 * the porter stemmer the index uses: retri ~ retries, configur ~ configuration).
 */
function contains(entry: EntryText, terms: string[][]): boolean[] {
  let text = `${entry.title} ${entry.heading} ${entry.body}`.toLowerCase();
  if (!/^[\x00-\x7f]*$/.test(text)) text = text.normalize('NFD').replace(/\p{M}+/gu, '');
  // A term's normal form (or the start matched below) is a prefix of a word of the text, so a term whose start is
  // nowhere in the text is not held: most entries are settled without splitting the text into words.
  const maybe = terms.map((keys) => keys.some((k) => text.includes(k.length < 4 ? k : k.slice(0, Math.max(4, k.length - 2)))));
  if (!maybe.some(Boolean)) return maybe;
  const words = normWords(text);
  const list = [...words];
  return terms.map((keys) => keys.some((k) => {
    if (words.has(k)) return true;
    if (k.length < 4) return false;
    const stem = k.slice(0, Math.max(4, k.length - 2));
    return list.some((w) => w.startsWith(stem));
  }));
}
