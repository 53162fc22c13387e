import type { SqliteDatabase as Db } from './sqlite.js';

/**
 * Passages written before the heading path had a field of its own (before issue 39) hold "title heading path" in
 * the title column and an empty heading, so they miss the heading's weight until their document is reindexed.
 * The old writer joined them as `${title} ${heading}` and the passage's text starts with `${heading}\n\n`
 * (src/documents/chunk.ts), so the split needs no store record: this pass moves the heading path out of the title
 * column, in place, a batch of rows per transaction, in the background after the file is opened.
 *
 * Resumable: lex_info keeps the last row done (`headings_after`) and the last row that can be of the old layout
 * (`headings_upto`, the highest row when the pass was first planned; rows written later are of the new layout);
 * `headings_done` ends it. A file created with the new layout is marked done at once.
 */
/**
 * Rows looked at per step. A step's cost is mostly its rows' FTS5 updates and the commit (a new segment): 50 rows
 * took 17 ms at a load average of 12 (select 3, updates 6, commit 8.5; bench/lexical-headings.ts), about a
 * search's time; 200 held the event loop 40-70 ms.
 */
export const HEADING_SPLIT_BATCH = 50;

/** fn in a transaction that takes the write lock at once (processes sharing the file take turns). */
function immediate<R>(db: Db, fn: () => R): R {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

const info = (db: Db, key: string) => db.prepare('SELECT value FROM lex_info WHERE key = ?').pluck().get(key) as string | undefined;
const setInfo = (db: Db, key: string, value: string) => db.prepare('INSERT OR REPLACE INTO lex_info (key, value) VALUES (?, ?)').run(key, value);

/**
 * Plans the pass once per file: `fresh` (the table was just created, nothing old in it) marks it done; otherwise
 * every row up to the highest one now may be old. Returns whether rows are left to look at.
 */
export function planHeadingSplit(db: Db, fresh: boolean): boolean {
  return immediate(db, () => {
    if (info(db, 'headings_done')) return false;
    if (fresh) { setInfo(db, 'headings_done', '1'); return false; }
    if (info(db, 'headings_upto') === undefined) {
      setInfo(db, 'headings_upto', String(db.prepare('SELECT COALESCE(MAX(rid), 0) FROM lex_meta').pluck().get()));
      setInfo(db, 'headings_after', '0');
    }
    return true;
  });
}

/**
 * One bounded step: looks at up to `batch` rows after the last one done and splits those of the old layout.
 * Several processes sharing the file may run it: each step holds the write lock from reading the position to
 * writing it. Returns how many rows were split and whether the pass is over.
 */
export function splitOldHeadings(db: Db, batch = HEADING_SPLIT_BATCH): { split: number; done: boolean } {
  return immediate(db, () => {
    if (info(db, 'headings_done')) return { split: 0, done: true };
    const upto = Number(info(db, 'headings_upto') ?? 0);
    const after = Number(info(db, 'headings_after') ?? 0);
    const rows = db.prepare('SELECT rowid AS rid, title, heading, body FROM lex_fts WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?')
      .all(after, upto, batch) as Array<{ rid: number; title: string; heading: string; body: string }>;
    const update = db.prepare('UPDATE lex_fts SET title = ?, heading = ? WHERE rowid = ?');
    let split = 0;
    for (const r of rows) {
      const heading = oldHeading(r.title, r.heading, r.body);
      if (heading === null) continue;
      update.run(r.title.slice(0, r.title.length - heading.length - 1), heading, r.rid);
      split++;
    }
    const done = rows.length < batch;
    if (done) setInfo(db, 'headings_done', '1');
    else setInfo(db, 'headings_after', String(rows[rows.length - 1].rid));
    return { split, done };
  });
}

/**
 * The heading path of a row of the old layout (the title column ends with it, the text starts with it as a
 * paragraph of its own), or null. A passage without a heading whose text starts with a paragraph that is the
 * last words of its title ("Acme Manual", "Manual\n\n...") cannot be told from one and is split too: those words
 * then weigh as a heading.
 */
export function oldHeading(title: string, heading: string, body: string): string | null {
  if (heading) return null;
  const end = body.indexOf('\n\n');
  if (end <= 0) return null;
  const path = body.slice(0, end);
  return title.length > path.length + 1 && title.endsWith(` ${path}`) ? path : null;
}

/**
 * Runs the pass in the background, one step (`splitOldHeadings`, run by the index's writer: `step` resolves true when
 * the pass is over) per turn of the event loop, until it is over or `stop()` (the index closing). A step that fails
 * (the file busy past its timeout) is reported and the pass is tried again at the next start. `finished` resolves in
 * every case.
 */
export function runHeadingSplit(step: () => Promise<boolean>, onError: (err: unknown) => void): { stop(): void; finished: Promise<void> } {
  let stopped = false;
  const finished = (async () => {
    try {
      while (!stopped) {
        await new Promise((r) => setImmediate(r));
        if (stopped || (await step())) return;
      }
    } catch (err) {
      if (!stopped) onError(err);
    }
  })();
  return { stop() { stopped = true; }, finished };
}
