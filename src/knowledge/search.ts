import type { AppContext } from '../app.js';
import type { LexicalIndex } from '../store/lexical-embedded.js';
import { embedTexts, findEmbedder, vectorCollection } from './embeddings.js';
import { knowledgeCollections } from './indexer.js';

/**
 * Hybrid search: BM25 over the lexical index always, cosine over vectors when the workspace has an
 * embedding connection, fused by reciprocal rank fusion (scores of the two kinds are not comparable,
 * ranks are).
 */
export type SearchMode = 'lexical' | 'vector' | 'hybrid';

export interface SearchResult {
  chunkId: string;
  documentId: string;
  sourceId: string;
  title: string;
  url: string | null;
  excerpt: string;
  /** Fused score (reciprocal rank fusion); only the order is meaningful. */
  score: number;
}

export interface SearchOutcome {
  results: SearchResult[];
  /** What was used: 'lexical' when no embedding connection exists or it failed. */
  mode: SearchMode;
  /** False when nothing found is a plausible answer (a knowledge gap). */
  relevant: boolean;
  /** Set when vectors were wanted but the embedding provider failed: the results are lexical only. */
  warning?: string;
}

export interface SearchOptions {
  sourceIds?: string[];
  topK: number;
  /** Force one side (retrieval evaluation); default hybrid when vectors are available. */
  mode?: SearchMode;
  signal?: AbortSignal;
}

/** Candidates taken from each side before fusion. */
const CANDIDATES = 50;
/** The usual RRF constant: damps the weight of the very first ranks. */
const RRF_K = 60;
/** A lexical hit answers when it holds at least this share of the question's terms. */
export const LEXICAL_COVERAGE_MIN = 0.5;
/** A vector hit answers when its cosine similarity reaches this. */
export const VECTOR_SIMILARITY_MIN = 0.55;

// Words that carry no topic; leaving them out keeps BM25 candidate lists short and coverage honest.
const STOP = new Set(('a an and are as at be but by can do does for from how i if in into is it its me my of on or our so that the their then there these they this to was we what when where which who why will with you your ' +
  'should would could about any all also have has had not no yes get use using want need tell please').split(' '));

export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const kept = words.filter((w) => w.length > 1 && !STOP.has(w));
  return [...new Set(kept.length ? kept : words)].slice(0, 32);
}

export async function hybridSearch(app: AppContext, lexical: LexicalIndex, workspaceId: string, query: string, opts: SearchOptions): Promise<SearchOutcome> {
  const terms = queryTerms(query);
  const want = opts.mode ?? 'hybrid';
  const lexHits = want === 'vector' ? [] : await lexical.search(workspaceId, terms, { sourceIds: opts.sourceIds, limit: CANDIDATES });
  let vecHits: Array<{ id: string; score: number }> = [];
  let usedVectors = false;
  let warning: string | undefined;
  if (want !== 'lexical' && (!opts.sourceIds || opts.sourceIds.length)) {
    // Lexical search needs no provider: a failing embedding connection costs the vector side, not the answer.
    try {
      const embedder = await findEmbedder(app, workspaceId);
      if (embedder) {
        const [v] = await embedTexts(app, embedder, [query], opts.signal, 'interactive');
        const filter = { workspaceId, embedder: embedder.key, ...(opts.sourceIds ? { sourceId: opts.sourceIds } : {}) };
        vecHits = await app.vectors.search(vectorCollection(v.length), v, { filter, limit: CANDIDATES });
        usedVectors = true;
      }
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      warning = `vector search unavailable, lexical results only: ${(err as Error)?.message ?? String(err)}`.slice(0, 500);
      app.log.warn({ err, workspaceId }, 'knowledge search fell back to lexical');
    }
  }
  const fused = new Map<string, number>();
  const addRanks = (hits: Array<{ id: string }>) => hits.forEach((h, rank) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (RRF_K + rank + 1)));
  addRanks(lexHits);
  addRanks(vecHits);
  const top = [...fused.entries()].sort((a, b) => b[1] - a[1]).slice(0, opts.topK);
  const records = top.length ? await knowledgeCollections(app).chunks.find({ workspaceId, _id: { $in: top.map(([id]) => id) } }) : [];
  const byId = new Map(records.map((r) => [r._id, r]));
  const results: SearchResult[] = [];
  for (const [id, score] of top) {
    const r = byId.get(id);
    // A hit whose record is gone (deleted between the two reads) is skipped, not shown empty.
    if (r) results.push({ chunkId: id, documentId: r.documentId, sourceId: r.sourceId, title: r.title, url: r.url, excerpt: r.text, score: Number(score.toFixed(6)) });
  }
  const coverage = terms.length ? Math.max(0, ...lexHits.slice(0, 3).map((h) => h.matchedTerms / terms.length)) : 0;
  const relevant = results.length > 0 && (coverage >= LEXICAL_COVERAGE_MIN || (vecHits[0]?.score ?? 0) >= VECTOR_SIMILARITY_MIN);
  const mode: SearchMode = want === 'lexical' ? 'lexical' : want === 'vector' ? 'vector' : usedVectors ? 'hybrid' : 'lexical';
  return warning ? { results, mode, relevant, warning } : { results, mode, relevant };
}
