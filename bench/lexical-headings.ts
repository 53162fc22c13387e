/**
 * The background pass that gives passages of the lexical layout before issue 39 their heading field
 * (src/store/lexical-headings.ts): how long one step holds the event loop and the file's write lock, and how long
 * the whole pass takes, on an old-layout file of the evaluation sets' documentation (test/fixtures/knowledge*,
 * chunked as ingestion does) written `--copies` times (default 8, about 25,000 passages).
 *
 *   npx tsx bench/lexical-headings.ts [--copies=8] [--batch=200]
 *
 * Baseline in the same run: a search of the same file (one visitor question) before the pass, so a step's time
 * reads against what one search costs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chunkMarkdown } from '../src/documents/chunk.js';
import { queryTerms } from '../src/knowledge/search.js';
import { openEmbeddedLexical } from '../src/store/lexical-embedded.js';
import { HEADING_SPLIT_BATCH, splitOldHeadings } from '../src/store/lexical-headings.js';
import { openSqlite } from '../src/store/sqlite.js';
import { SETS } from './knowledge-eval.js';

const arg = (name: string) => process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const COPIES = Math.max(1, Math.min(Number(arg('copies')) || 8, 50));
const BATCH = Math.max(1, Number(arg('batch')) || HEADING_SPLIT_BATCH);
const setDir = (set: string) => new URL(`../test/fixtures/${set}/corpus/`, import.meta.url).pathname;
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0; };

const passages = SETS.flatMap((set) => readdirSync(setDir(set)).filter((f) => f.endsWith('.md') && f !== 'LICENSES.md').flatMap((f) => {
  const md = readFileSync(join(setDir(set), f), 'utf8');
  const title = md.match(/^#\s+(.+)$/m)?.[1] ?? f;
  return chunkMarkdown(md).map((c) => ({ doc: `${set}/${f}`, title, heading: c.heading, text: c.text }));
}));

const dir = mkdtempSync(join(tmpdir(), 'bench-lex-headings-'));
try {
  // The file as the version before issue 39 wrote it (test/knowledge/first-ranks.test.ts writes the same layout).
  const old = openSqlite(join(dir, 'lexical.db'));
  old.exec('CREATE TABLE lex_meta (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, ws TEXT NOT NULL, source TEXT NOT NULL, doc TEXT NOT NULL)');
  old.exec(`CREATE VIRTUAL TABLE lex_fts USING fts5(title, body, ws, src, tokenize = 'porter unicode61 remove_diacritics 2')`);
  old.exec(`INSERT INTO lex_fts (lex_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0, 0.0, 0.0)')`);
  const meta = old.prepare('INSERT INTO lex_meta (rid, id, ws, source, doc) VALUES (?, ?, ?, ?, ?)');
  const fts = old.prepare('INSERT INTO lex_fts (rowid, title, body, ws, src) VALUES (?, ?, ?, ?, ?)');
  let rid = 0;
  old.transaction(() => {
    for (let c = 0; c < COPIES; c++) for (const p of passages) {
      rid++;
      meta.run(rid, `kch_${rid}`, 'ws_1', 'ks_1', `${c}/${p.doc}`);
      fts.run(rid, p.heading ? `${p.title} ${p.heading}` : p.title, p.text, 'wws1', 'sks1');
    }
  })();
  old.close();
  const withHeading = passages.filter((p) => p.heading).length * COPIES;

  // Opening copies the table to the new layout (in one transaction, at start); closed before the first step.
  let t = performance.now();
  const lex = openEmbeddedLexical(dir);
  const openMs = performance.now() - t;
  const q = queryTerms('How do I set a timeout so a call to the API does not hang forever?');
  const searches: number[] = [];
  for (let i = 0; i < 20; i++) { t = performance.now(); await lex.search('ws_1', q, { limit: 50 }); searches.push(performance.now() - t); }
  await lex.close();

  // The steps on a connection set up as the index's own (WAL, synchronous NORMAL: no sync per commit).
  const db = openSqlite(join(dir, 'lexical.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const steps: number[] = [];
  let split = 0;
  const t0 = performance.now();
  for (;;) {
    t = performance.now();
    const r = splitOldHeadings(db, BATCH);
    steps.push(performance.now() - t);
    split += r.split;
    if (r.done) break;
  }
  const total = performance.now() - t0;
  db.close();
  console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`${rid} passages (${passages.length} x ${COPIES}), ${withHeading} with a heading path; opening (layout copied): ${(openMs / 1000).toFixed(1)} s`);
  console.log(`baseline, one search of the old-layout file: p50 ${pct(searches, 50).toFixed(1)} ms, max ${pct(searches, 100).toFixed(1)} ms`);
  console.log(`heading pass, batch ${BATCH}: ${steps.length} steps, ${split} passages split, ${(total / 1000).toFixed(1)} s in all; one step p50 ${pct(steps, 50).toFixed(1)} ms, p99 ${pct(steps, 99).toFixed(1)} ms, max ${pct(steps, 100).toFixed(1)} ms`);
  // More split than had a heading: passages without one whose text starts with the title's last words (ambiguous).
  if (split !== withHeading) console.log(`  split ${split - withHeading} passages more than had a heading path`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
