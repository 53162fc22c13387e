import { openSqlite } from './sqlite.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { VectorFilter, VectorHit, VectorPoint, VectorStore } from './types.js';
import { BLOCK, VectorMatrix } from './vector-kernel.js';

/**
 * One collection in memory: normalised vectors packed row by row, in float32 and in int8 (a scan reads memory
 * in order), with ids and payloads at the same row. Deletes move the last row into the hole.
 */
interface Loaded { dim: number; size: number; matrix: VectorMatrix; ids: string[]; payloads: Record<string, unknown>[]; index: Map<string, number> }

/**
 * Cosine search over normalised vectors: an int8 scan for candidates, then an exact float32 re-score (see topK).
 * Points are stored in SQLite (vectors.db under DATA_DIR, WAL) and kept in memory per collection for scanning.
 */
export function openEmbeddedVectors(dataDir: string): VectorStore {
  mkdirSync(dataDir, { recursive: true });
  const db = openSqlite(join(dataDir, 'vectors.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS collections (name TEXT PRIMARY KEY, dim INTEGER NOT NULL)');
  // A rowid table: rows of a kilobyte or more are several times slower to insert WITHOUT ROWID. Files made by
  // earlier versions keep their table; the statements below work on both (they only need the unique key).
  db.exec('CREATE TABLE IF NOT EXISTS points (coll TEXT NOT NULL, id TEXT NOT NULL, vec BLOB NOT NULL, payload TEXT NOT NULL, UNIQUE (coll, id))');
  const put = db.prepare('INSERT INTO points (coll, id, vec, payload) VALUES (?, ?, ?, ?) ON CONFLICT(coll, id) DO UPDATE SET vec = excluded.vec, payload = excluded.payload');
  const del = db.prepare('DELETE FROM points WHERE coll = ? AND id = ?');
  const loaded = new Map<string, Loaded>();
  // Scale-out: the workers of one host share vectors.db. data_version changes when another connection
  // commits, so what this process keeps in memory is dropped and read again after another process wrote.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();

  function load(name: string): Loaded | null {
    const version = dataVersion.get();
    if (version !== seenVersion) { seenVersion = version; loaded.clear(); }
    let l = loaded.get(name);
    if (l) return l;
    const c = db.prepare('SELECT dim FROM collections WHERE name = ?').get(name) as { dim: number } | undefined;
    if (!c) return null;
    const n = (db.prepare('SELECT COUNT(*) AS n FROM points WHERE coll = ?').get(name) as { n: number }).n;
    l = { dim: c.dim, size: 0, matrix: new VectorMatrix(c.dim, n), ids: [], payloads: [], index: new Map() };
    for (const row of db.prepare('SELECT id, vec, payload FROM points WHERE coll = ?').iterate(name) as Iterable<{ id: string; vec: Buffer; payload: string }>) {
      // Copied through a fresh Uint8Array: the blob's offset need not be 4-byte aligned for a Float32Array view.
      setRow(l, row.id, new Float32Array(new Uint8Array(row.vec).buffer), JSON.parse(row.payload));
    }
    loaded.set(name, l);
    return l;
  }

  return {
    kind: 'embedded',
    async ensureCollection(name, dimension) {
      if (!Number.isInteger(dimension) || dimension <= 0) throw new Error(`bad vector dimension: ${dimension}`);
      const c = db.prepare('SELECT dim FROM collections WHERE name = ?').get(name) as { dim: number } | undefined;
      if (c && c.dim !== dimension) throw new Error(`vector collection ${name} has dimension ${c.dim}, not ${dimension}`);
      if (!c) db.prepare('INSERT INTO collections (name, dim) VALUES (?, ?)').run(name, dimension);
    },
    async upsert(name, points: VectorPoint[]) {
      const l = load(name);
      if (!l) throw new Error(`vector collection ${name} does not exist`);
      const prepared = points.map((p) => {
        if (p.vector.length !== l.dim) throw new Error(`vector for ${p.id} has ${p.vector.length} dimensions, not ${l.dim}`);
        return { id: p.id, vector: normalise(p.vector), payload: structuredClone(p.payload) as Record<string, unknown> };
      });
      // Disk first, in one transaction; memory follows only once the write is committed.
      db.transaction(() => {
        for (const p of prepared) put.run(name, p.id, Buffer.from(p.vector.buffer, p.vector.byteOffset, p.vector.byteLength), JSON.stringify(p.payload));
      })();
      for (const p of prepared) setRow(l, p.id, p.vector, p.payload);
    },
    async search(name, vector, { filter, limit }): Promise<VectorHit[]> {
      const l = load(name);
      if (!l || limit <= 0) return [];
      if (vector.length !== l.dim) throw new Error(`query vector has ${vector.length} dimensions, not ${l.dim}`);
      return topK(l, normalise(vector), matcher(filter), Math.floor(limit));
    },
    async deleteByFilter(name, filter) {
      const l = load(name);
      if (!l) return;
      const match = matcher(filter);
      const doomed: string[] = [];
      for (let i = 0; i < l.size; i++) if (match(l.payloads[i])) doomed.push(l.ids[i]);
      if (!doomed.length) return;
      db.transaction(() => { for (const id of doomed) del.run(name, id); })();
      for (const id of doomed) removeRow(l, id);
    },
    async count(name, filter) {
      const l = load(name);
      if (!l) return 0;
      const match = matcher(filter);
      let n = 0;
      for (let i = 0; i < l.size; i++) if (match(l.payloads[i])) n++;
      return n;
    },
    async close() { loaded.clear(); if (db.open) db.close(); },
  };
}

function setRow(l: Loaded, id: string, vector: Float32Array, payload: Record<string, unknown>): void {
  let i = l.index.get(id);
  if (i === undefined) {
    i = l.size++;
    l.matrix.reserve(l.size);
    l.index.set(id, i);
    l.ids[i] = id;
  }
  l.matrix.setRow(i, vector);
  l.payloads[i] = payload;
}

function removeRow(l: Loaded, id: string): void {
  const i = l.index.get(id);
  if (i === undefined) return;
  const last = --l.size;
  if (i !== last) {
    l.matrix.moveRow(last, i);
    l.ids[i] = l.ids[last];
    l.payloads[i] = l.payloads[last];
    l.index.set(l.ids[i], i);
  }
  l.ids.length = last;
  l.payloads.length = last;
  l.index.delete(id);
}

/**
 * A payload matches when every filter field matches: a value by equality, an array as "any of". A payload
 * field that is itself an array matches when one of its items does (as in Qdrant).
 */
function matcher(filter: VectorFilter): (p: Record<string, unknown>) => boolean {
  if (typeof filter.workspaceId !== 'string') throw new Error('a vector filter needs workspaceId');
  const tests = Object.entries(filter).filter(([, v]) => v !== undefined).map(([k, v]) => {
    const wanted = Array.isArray(v) ? new Set<unknown>(v) : new Set<unknown>([v]);
    return (p: Record<string, unknown>) => {
      const have = p[k];
      return Array.isArray(have) ? have.some((x) => wanted.has(x)) : wanted.has(have);
    };
  });
  const ws = filter.workspaceId;
  // The workspace comparison comes first: it rejects most rows at the cost of one string compare.
  return (p) => {
    if (p.workspaceId !== ws) return false;
    for (const t of tests) if (!t(p)) return false;
    return true;
  };
}

/** Candidates the quantised pass keeps for the exact re-score: 4 per result, at least 50. */
const candidateCount = (k: number) => Math.max(4 * k, 50);

/**
 * Top-k by cosine in two stages. First an approximate pass: int8 dot products a block at a time from the SIMD
 * kernel into a min-heap of (score, row) the size of candidateCount(k); the filter runs only for rows that
 * would enter the heap. Then the candidates are re-scored exactly in float32 and the best k returned: the
 * order and scores returned are exact, while which rows become candidates is approximate (a true top-k row
 * whose int8 score falls below the candidates' could be missed; with 4x headroom and unit vectors it is not in
 * practice, and a collection no larger than the candidate count is always exact).
 */
function topK(l: Loaded, q: Float32Array, match: (p: Record<string, unknown>) => boolean, k: number): VectorHit[] {
  const c = candidateCount(k);
  const scores = new Float64Array(c);
  const rows = new Int32Array(c);
  const block = new Float64Array(BLOCK);
  let n = 0;
  l.matrix.setQuery(q);
  for (let start = 0; start < l.size; start += BLOCK) {
    const count = Math.min(BLOCK, l.size - start);
    l.matrix.approximate(start, count, block);
    for (let j = 0; j < count; j++) {
      const s = block[j];
      if (n === c && s <= scores[0]) continue;
      const i = start + j;
      if (!match(l.payloads[i])) continue;
      if (n < c) { scores[n] = s; rows[n] = i; siftUp(scores, rows, n++); }
      else { scores[0] = s; rows[0] = i; siftDown(scores, rows, n); }
    }
  }
  const exact = Array.from(rows.subarray(0, n), (row) => ({ row, score: l.matrix.exact(row, q) }));
  exact.sort((a, b) => b.score - a.score || a.row - b.row);
  return exact.slice(0, k).map(({ row, score }) => ({ id: l.ids[row], score, payload: { ...l.payloads[row] } }));
}

function siftUp(s: Float64Array, r: Int32Array, i: number): void {
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (s[p] <= s[i]) return;
    swap(s, r, i, p);
    i = p;
  }
}

function siftDown(s: Float64Array, r: Int32Array, n: number): void {
  let i = 0;
  for (;;) {
    const a = 2 * i + 1, b = a + 1;
    let m = i;
    if (a < n && s[a] < s[m]) m = a;
    if (b < n && s[b] < s[m]) m = b;
    if (m === i) return;
    swap(s, r, i, m);
    i = m;
  }
}

function swap(s: Float64Array, r: Int32Array, i: number, j: number): void {
  const ts = s[i]; s[i] = s[j]; s[j] = ts;
  const tr = r[i]; r[i] = r[j]; r[j] = tr;
}

function normalise(v: number[] | Float32Array): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (let i = 0; i < out.length; i++) n += out[i] * out[i];
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}
