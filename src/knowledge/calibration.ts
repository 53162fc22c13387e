import { createHash } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import { DuplicateKeyError, type Doc } from '../store/types.js';
import { COLLECTIONS } from './collections.js';

/**
 * What an embedding model's cosine similarities mean in one knowledge base, learnt from the knowledge base itself
 * while it is indexed (issue 39): models differ in scale (one puts unrelated passages at 0.1, another at 0.7), so a
 * fixed similarity point cannot say "related" for every model. Two distributions are kept per workspace and
 * embedder:
 * - unrelated: the similarity of passages of different documents (a sample of earlier documents' vectors is kept
 *   to compare each new document with): what chance looks like;
 * - related: the similarity of a passage and the next one in the same document: what "about the same thing" looks
 *   like (free: both vectors are in hand, no extra embedding call).
 * A new embedder starts a new record (its key is in the id); as the corpus changes, old pairs fade (the moments
 * are halved past MAX_PAIRS) and the sample rotates, so the scale follows the knowledge base.
 */
export interface Moments { n: number; sum: number; sumSq: number }

export interface CalibrationRecord extends Doc {
  embedder: string;
  unrelated: Moments;
  related: Moments;
  /** Vectors of earlier documents (int8, base64) to compare new documents with. */
  samples: Array<{ doc: string; v: string }>;
  updatedAt: number;
  /** Raised by every update: a write is applied only over the record it was computed from (absent before it existed). */
  version?: number;
}

/** The scale fusion reads (src/knowledge/fusion.ts). */
export interface SimilarityCalibration {
  /** Mean and spread of the similarity of unrelated passages. */
  nullMean: number;
  nullSd: number;
  /** Mean similarity of neighbouring passages of one document. */
  relatedMean: number;
}

/** Fewer pairs than this on either side: the model is not calibrated yet (fusion falls back to words). */
export const MIN_PAIRS = 30;
const SAMPLE_SIZE = 48;
const SAMPLES_PER_DOCUMENT = 2;
const PER_DOCUMENT_PROBES = 6;
const MAX_PAIRS = 20_000;

const calibrations = (app: AppContext) => app.store.collection<CalibrationRecord>(COLLECTIONS.calibration);
const recordId = (workspaceId: string, embedder: string) => `kcal_${createHash('sha256').update(`${workspaceId}\n${embedder}`).digest('hex').slice(0, 24)}`;

const toInt8 = (v: Float32Array) => Buffer.from(Int8Array.from(v, (x) => Math.max(-127, Math.min(127, Math.round(x * 127)))).buffer).toString('base64');
const fromInt8 = (s: string) => { const b = Buffer.from(s, 'base64'); return Float32Array.from(new Int8Array(b.buffer, b.byteOffset, b.byteLength), (x) => x / 127); };

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

const add = (m: Moments, x: number) => { m.n++; m.sum += x; m.sumSq += x * x; };
const halve = (m: Moments) => { m.n /= 2; m.sum /= 2; m.sumSq /= 2; };
const evenly = <T>(xs: T[], k: number) => (xs.length <= k ? xs : Array.from({ length: k }, (_, i) => xs[Math.floor((i * xs.length) / k)]));

/**
 * Adds a document's freshly made vectors to its workspace's calibration for this embedder. Documents are indexed
 * side by side (one job per source), and each update reads the record and writes it back: updates of one record
 * take turns in this process, and a write computed from a record another process has changed since is computed
 * again, so no document's pairs are lost.
 */
export function learnSimilarities(app: AppContext, workspaceId: string, embedder: string, documentId: string, made: Map<number, Float32Array>): Promise<void> {
  if (!made.size) return Promise.resolve();
  const _id = recordId(workspaceId, embedder);
  const turn = (learning.get(_id) ?? Promise.resolve()).then(() => learnOnce(app, workspaceId, _id, embedder, documentId, made));
  const settled = turn.catch(() => {});
  learning.set(_id, settled);
  void settled.then(() => { if (learning.get(_id) === settled) learning.delete(_id); });
  return turn;
}

/** The update under way (or last queued) per calibration record in this process. */
const learning = new Map<string, Promise<void>>();
const TRIES = 8;

async function learnOnce(app: AppContext, workspaceId: string, _id: string, embedder: string, documentId: string, made: Map<number, Float32Array>): Promise<void> {
  const col = calibrations(app);
  for (let attempt = 1; ; attempt++) {
    const found = await col.findById(workspaceId, _id);
    const rec = found ? structuredClone(found) : {
      _id, workspaceId, embedder, unrelated: { n: 0, sum: 0, sumSq: 0 }, related: { n: 0, sum: 0, sumSq: 0 }, samples: [], updatedAt: 0,
    } satisfies CalibrationRecord;
    addDocument(rec, documentId, made);
    rec.updatedAt = app.clock.now();
    rec.version = (found?.version ?? 0) + 1;
    // Records written before `version` existed are matched by their last update's time instead.
    const unchanged = found ? (found.version === undefined ? { updatedAt: found.updatedAt } : { version: found.version }) : null;
    const { _id: _, workspaceId: __, ...fields } = rec;
    const written = unchanged
      ? (await col.updateOne({ workspaceId, _id, ...unchanged }, { $set: fields })) !== null
      : await col.insertOne(rec).then(() => true, (err: unknown) => { if (err instanceof DuplicateKeyError) return false; throw err; });
    if (written) break;
    if (attempt === TRIES) throw new Error(`the calibration record changed under ${TRIES} tries in a row`);
  }
  cache.delete(_id);
}

/** The document's pairs added to the record's moments; its samples replace any it had. */
function addDocument(rec: CalibrationRecord, documentId: string, made: Map<number, Float32Array>): void {
  const byIndex = [...made.entries()].sort((a, b) => a[0] - b[0]);
  for (let i = 0; i + 1 < byIndex.length; i++) if (byIndex[i + 1][0] === byIndex[i][0] + 1) add(rec.related, cosine(byIndex[i][1], byIndex[i + 1][1]));
  const others = rec.samples.filter((s) => s.doc !== documentId).map((s) => fromInt8(s.v));
  for (const [, v] of evenly(byIndex, PER_DOCUMENT_PROBES)) for (const o of others) add(rec.unrelated, cosine(v, o));
  for (const m of [rec.unrelated, rec.related]) if (m.n > MAX_PAIRS) halve(m);
  const mine = evenly(byIndex, SAMPLES_PER_DOCUMENT).map(([, v]) => ({ doc: documentId, v: toInt8(v) }));
  rec.samples = [...rec.samples.filter((s) => s.doc !== documentId), ...mine].slice(-SAMPLE_SIZE);
}

const stats = (m: Moments) => { const mean = m.sum / m.n; return { mean, sd: Math.sqrt(Math.max(0, m.sumSq / m.n - mean * mean)) }; };

/** A record as the scale fusion reads, or null while either side has fewer than MIN_PAIRS pairs. */
export function calibrationOf(rec: Pick<CalibrationRecord, 'unrelated' | 'related'> | null): SimilarityCalibration | null {
  if (!rec || rec.unrelated.n < MIN_PAIRS || rec.related.n < MIN_PAIRS) return null;
  const u = stats(rec.unrelated);
  return { nullMean: u.mean, nullSd: Math.max(u.sd, 1e-3), relatedMean: stats(rec.related).mean };
}

/** Searches read the calibration often and it moves slowly: kept for a few seconds per workspace and embedder. */
const cache = new Map<string, { at: number; value: SimilarityCalibration | null }>();
const CACHE_MS = 10_000;

export async function loadCalibration(app: AppContext, workspaceId: string, embedder: string): Promise<SimilarityCalibration | null> {
  const _id = recordId(workspaceId, embedder);
  const hit = cache.get(_id);
  const now = Date.now();
  if (hit && now - hit.at < CACHE_MS) return hit.value;
  const value = calibrationOf(await calibrations(app).findById(workspaceId, _id));
  if (cache.size > 1000) cache.clear();
  cache.set(_id, { at: now, value });
  return value;
}
