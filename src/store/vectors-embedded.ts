import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { VectorFilter, VectorHit, VectorPoint, VectorStore } from './types.js';

interface Loaded { dim: number; ids: string[]; vectors: Float32Array[]; payloads: Record<string, unknown>[]; index: Map<string, number> }

/**
 * Exact cosine search over normalised float32 vectors. Points are stored in SQLite (vectors.db under
 * DATA_DIR) and kept in memory per collection for scanning; a scan of 100k 256-d vectors is a few ms.
 */
export function openEmbeddedVectors(dataDir: string): VectorStore {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'vectors.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS collections (name TEXT PRIMARY KEY, dim INTEGER NOT NULL)');
  db.exec('CREATE TABLE IF NOT EXISTS points (coll TEXT NOT NULL, id TEXT NOT NULL, vec BLOB NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (coll, id)) WITHOUT ROWID');
  const loaded = new Map<string, Loaded>();

  function load(name: string): Loaded | null {
    let l = loaded.get(name);
    if (l) return l;
    const c = db.prepare('SELECT dim FROM collections WHERE name = ?').get(name) as { dim: number } | undefined;
    if (!c) return null;
    l = { dim: c.dim, ids: [], vectors: [], payloads: [], index: new Map() };
    for (const row of db.prepare('SELECT id, vec, payload FROM points WHERE coll = ?').iterate(name) as Iterable<{ id: string; vec: Buffer; payload: string }>) {
      l.index.set(row.id, l.ids.length);
      l.ids.push(row.id);
      l.vectors.push(new Float32Array(row.vec.buffer.slice(row.vec.byteOffset, row.vec.byteOffset + row.vec.byteLength)));
      l.payloads.push(JSON.parse(row.payload));
    }
    loaded.set(name, l);
    return l;
  }

  const matches = (p: Record<string, unknown>, f: VectorFilter) =>
    Object.entries(f).every(([k, v]) => (Array.isArray(v) ? v.includes(p[k] as never) : p[k] === v));

  function removeWhere(name: string, l: Loaded, keep: (i: number) => boolean) {
    const next: Loaded = { dim: l.dim, ids: [], vectors: [], payloads: [], index: new Map() };
    const del = db.prepare('DELETE FROM points WHERE coll = ? AND id = ?');
    db.transaction(() => {
      l.ids.forEach((id, i) => {
        if (keep(i)) { next.index.set(id, next.ids.length); next.ids.push(id); next.vectors.push(l.vectors[i]); next.payloads.push(l.payloads[i]); }
        else del.run(name, id);
      });
    })();
    loaded.set(name, next);
  }

  return {
    kind: 'embedded',
    async ensureCollection(name, dimension) {
      const c = db.prepare('SELECT dim FROM collections WHERE name = ?').get(name) as { dim: number } | undefined;
      if (c && c.dim !== dimension) throw new Error(`vector collection ${name} has dimension ${c.dim}, not ${dimension}`);
      if (!c) db.prepare('INSERT INTO collections (name, dim) VALUES (?, ?)').run(name, dimension);
    },
    async upsert(name, points: VectorPoint[]) {
      const l = load(name);
      if (!l) throw new Error(`vector collection ${name} does not exist`);
      const put = db.prepare('INSERT INTO points (coll, id, vec, payload) VALUES (?, ?, ?, ?) ON CONFLICT(coll, id) DO UPDATE SET vec = excluded.vec, payload = excluded.payload');
      const prepared = points.map((p) => {
        if (p.vector.length !== l.dim) throw new Error(`vector for ${p.id} has ${p.vector.length} dimensions, not ${l.dim}`);
        return { ...p, vector: normalise(p.vector) };
      });
      db.transaction(() => { for (const p of prepared) put.run(name, p.id, Buffer.from(p.vector.buffer), JSON.stringify(p.payload)); })();
      for (const p of prepared) {
        const i = l.index.get(p.id);
        if (i === undefined) { l.index.set(p.id, l.ids.length); l.ids.push(p.id); l.vectors.push(p.vector); l.payloads.push(p.payload); }
        else { l.vectors[i] = p.vector; l.payloads[i] = p.payload; }
      }
    },
    async search(name, vector, { filter, limit }): Promise<VectorHit[]> {
      const l = load(name);
      if (!l || limit <= 0) return [];
      const q = normalise(vector);
      const best: VectorHit[] = [];
      for (let i = 0; i < l.ids.length; i++) {
        if (!matches(l.payloads[i], filter)) continue;
        const v = l.vectors[i];
        let s = 0;
        for (let d = 0; d < v.length; d++) s += v[d] * q[d];
        if (best.length < limit || s > best[best.length - 1].score) {
          best.push({ id: l.ids[i], score: s, payload: l.payloads[i] });
          best.sort((a, b) => b.score - a.score);
          if (best.length > limit) best.pop();
        }
      }
      return best;
    },
    async deleteByFilter(name, filter) {
      const l = load(name);
      if (l) removeWhere(name, l, (i) => !matches(l.payloads[i], filter));
    },
    async count(name, filter) {
      const l = load(name);
      return l ? l.payloads.filter((p) => matches(p, filter)).length : 0;
    },
    async close() { if (db.open) db.close(); },
  };
}

function normalise(v: number[] | Float32Array): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}
