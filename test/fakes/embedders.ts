import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { EMBEDDING_CHECK_TEXT } from '../../src/knowledge/embedding-check.js';

/**
 * Embedders a fake OpenAI-compatible server can serve (startFakeOpenAI({ embed })), to measure search with
 * embeddings of known quality through the provider path:
 * - `weakEmbedding`: a deliberately weak model, random projections of the text's word counts (every word,
 *   function words too) onto 64 dimensions: similar texts point roughly the same way, with a lot of noise;
 * - `builtInModelEmbedder`: the built-in model's vectors (src/providers/local-model.ts) served as a provider's,
 *   read from a cache of int8 vectors kept beside an evaluation set (computed with the model on a miss, so a
 *   test stays fast and a changed passage is still embedded by the model itself).
 */
export type EmbedFn = (texts: string[]) => Promise<number[][]>;

export const WEAK_DIMS = 64;

function seed(word: string): number {
  return createHash('sha1').update(word).digest().readUInt32LE(0);
}

/** A word's random direction: a deterministic Gaussian vector (mulberry32 + Box-Muller) seeded by the word. */
const directions = new Map<string, Float64Array>();
function direction(word: string): Float64Array {
  let d = directions.get(word);
  if (d) return d;
  let a = seed(word);
  const rand = () => { a = (a + 0x6d2b79f5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  d = new Float64Array(WEAK_DIMS);
  for (let i = 0; i < WEAK_DIMS; i++) d[i] = Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
  if (directions.size > 200_000) directions.clear();
  directions.set(word, d);
  return d;
}

export function weakEmbedding(text: string): number[] {
  const v = new Float64Array(WEAK_DIMS);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const d = direction(w);
    for (let i = 0; i < WEAK_DIMS; i++) v[i] += d[i];
  }
  const n = Math.hypot(...v);
  if (n === 0) { v[0] = 1; return [...v]; }
  return [...v].map((x) => x / n);
}

export const weakEmbedder: EmbedFn = async (texts) => texts.map(weakEmbedding);

const key = (text: string) => createHash('sha1').update(text).digest('hex');
const DIM = 512;
const RECORD = 20 + DIM;

/**
 * The built-in model's vectors with a cache file (`file`): records of the text's SHA-1 (20 bytes) and the unit
 * vector as int8 (x 127). `save()` writes the file when vectors were added.
 */
export function builtInModelEmbedder(file: string): EmbedFn & { save(): void; misses(): number } {
  const cache = new Map<string, Int8Array>();
  if (existsSync(file)) {
    const buf = readFileSync(file);
    for (let o = 0; o + RECORD <= buf.length; o += RECORD) cache.set(buf.subarray(o, o + 20).toString('hex'), new Int8Array(buf.buffer.slice(buf.byteOffset + o + 20, buf.byteOffset + o + RECORD)));
  }
  let added = 0;
  // The settings check's sentence is not a passage or a question: it gets a vector without running the model.
  const check = new Int8Array(DIM); check[0] = 127;
  cache.set(key(EMBEDDING_CHECK_TEXT), check);
  const embed = async (texts: string[]) => {
    const keys = texts.map(key);
    const missing = [...new Set(keys.map((k, i) => (cache.has(k) ? -1 : i)).filter((i) => i >= 0).map((i) => texts[i]))];
    if (missing.length) {
      const { embedLocally } = await import('../../src/providers/local-model.js');
      const vs = await embedLocally(missing);
      missing.forEach((t, i) => cache.set(key(t), Int8Array.from(vs[i], (x) => Math.max(-127, Math.min(127, Math.round(x * 127))))));
      added += missing.length;
    }
    return keys.map((k) => Array.from(cache.get(k)!, (x) => x / 127));
  };
  return Object.assign(embed, {
    misses: () => added,
    save() {
      if (!added) return;
      const buf = Buffer.alloc((cache.size - 1) * RECORD);
      let o = 0;
      for (const [k, v] of [...cache.entries()].filter(([k]) => k !== key(EMBEDDING_CHECK_TEXT)).sort((a, b) => a[0].localeCompare(b[0]))) { buf.write(k, o, 'hex'); Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(buf, o + 20); o += RECORD; }
      writeFileSync(file, buf);
      added = 0;
    },
  });
}

/** A model with no signal at all: every text gets a random direction of its own (seeded by the whole text). */
export const noiseEmbedder: EmbedFn = async (texts) => texts.map((t) => weakEmbedding(createHash('sha1').update(t).digest('hex')));
