import type { AppContext } from '../app/context.js';
import { embedTexts, type Embedder } from './embeddings.js';

/** Vector bytes kept at most (512-dimension vectors: ~8,000 queries); the least recently used go first. */
export const QUERY_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Query embeddings kept by workspace, embedder and exact text (docs/knowledge.md, "Search"): a question asked
 * again, or a script sending one search thousands of times, costs the provider one call. Identical searches in
 * flight at once share that call. Failures are not kept. The workspace is in the key so that how fast a search
 * answers never tells one workspace what another searched for.
 */
export class QueryEmbeddings {
  private kept = new Map<string, Float32Array>();
  private pending = new Map<string, Promise<Float32Array>>();
  private bytes = 0;

  constructor(private app: AppContext, private maxBytes: number) {}

  async get(workspaceId: string, embedder: Embedder, text: string, signal?: AbortSignal): Promise<Float32Array> {
    const key = `${workspaceId}\n${embedder.key}\n${embedder.connection?.baseUrl ?? ''}\n${text}`;
    const hit = this.kept.get(key);
    if (hit) {
      this.kept.delete(key);
      this.kept.set(key, hit);
      return hit;
    }
    let job = this.pending.get(key);
    if (!job) {
      // Not tied to one caller's signal: the others waiting on it would lose their answer when that one leaves.
      job = embedTexts(this.app, embedder, [text], undefined, 'interactive').then(([v]) => v);
      this.pending.set(key, job);
      job.then((v) => this.keep(key, v), () => {}).finally(() => this.pending.delete(key));
    }
    return signal ? abortable(job, signal) : job;
  }

  private keep(key: string, v: Float32Array): void {
    if (v.byteLength > this.maxBytes) return;
    const before = this.kept.get(key);
    if (before) { this.kept.delete(key); this.bytes -= before.byteLength; }
    this.kept.set(key, v);
    this.bytes += v.byteLength;
    for (const [k, old] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(k);
      this.bytes -= old.byteLength;
    }
  }
}

function abortable<T>(job: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    job.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

