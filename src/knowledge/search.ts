import type { AppContext } from '../app.js';
import type { LexicalIndex } from '../store/lexical-embedded.js';
import { embedTexts, findEmbedder, vectorCollection } from './embeddings.js';
import { knowledgeCollections } from './indexer.js';

/**
 * Hybrid search: BM25 over the lexical index always, cosine over vectors when the workspace has an
 * embedding connection, fused by reciprocal rank fusion weighted by each list's trust (scores of the two
 * kinds are not comparable, ranks are), with at most PER_DOCUMENT excerpts per document up front.
 */
export type SearchMode = 'lexical' | 'vector' | 'hybrid';

export interface SearchResult {
  chunkId: string;
  documentId: string;
  sourceId: string;
  title: string;
  url: string | null;
  excerpt: string;
  /** Relevance estimate from 0 to 1 (RELEVANT_MIN and above: this passage likely answers). */
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
/**
 * `score` is a relevance estimate from 0 to 1 on which RELEVANT_MIN (0.5) means "likely answers" (see
 * docs/knowledge.md): for a lexical hit its coverage (the IDF-weighted share of the question's words it
 * contains) mapped so that LEXICAL_COVERAGE_MIN is 0.5, for a vector hit its cosine similarity mapped so
 * that VECTOR_SIMILARITY_MIN is 0.5; a hit found both ways takes the larger. A search is relevant when one
 * of the best three hits of either list reaches it.
 */
export const RELEVANT_MIN = 0.5;
/**
 * Coverage that counts as a relevance of 0.5. Calibrated on bench/knowledge-eval.ts: from 0.23 to 0.26
 * 88-91% of the answerable questions are marked relevant at precision 0.90-0.91 (4 of 10 unanswerable
 * recognised); at 0.2, 95% but 2 of 10; at 0.3, 58% and 6 of 10. A missed answer costs more than a missed
 * gap (the agent gets no excerpts at all when a search is not relevant), so the low end of that plateau.
 */
export const LEXICAL_COVERAGE_MIN = 0.24;
/** The cosine similarity that counts as a relevance of 0.5; similarity 0.3 counts as 0, 0.8 as 1. */
export const VECTOR_SIMILARITY_MIN = 0.55;
/**
 * Excerpts of one document that come before every other candidate document has had its best one: 1 (on the
 * evaluation, 2 lost 0.05 recall@5: one long page's sections crowded out the page that answers).
 */
const PER_DOCUMENT = 1;

// Words that carry no topic (English, and the commonest German, French and Spanish ones); leaving them out
// keeps BM25 candidate lists short and coverage honest.
const STOP = new Set(('a an and are as at be but by can do does for from how i if in into is it its me my of on or our so that the their then there these they this to was we what when where which who why will with you your ' +
  'should would could about any all also have has had not no yes get use using want need tell please ' +
  // Words of asking and of manner that say nothing about the topic.
  'am been being did doing done d ll m re s t ve don doesn isn im id ive ' +
  'welche welcher welches welchem welchen wenn dass ob auch noch nur schon sehr mehr um über unter durch ohne gegen mein meine meinen dein deine sein seine ihre man mich mir dich dir uns euch ' +
  'à l d qu quel quelle quels quelles en y sa son ses leur leurs notre votre nos vos sans très plus moi toi lui se ne avoir être fait faire ' +
  'cuál cual cuáles cuales debe deben sin entre muy más este esta estos estas ese esa hay tengo tiene me te le les nos yo tu tú hacer ' +
  'der die das den dem des ein eine einen einem einer und oder ist sind wie was wer wo wann warum ich du sie er es wir ihr mit von zu zum zur im auf aus bei für nicht kann können muss ' +
  'le la les un une des du de et ou est sont comment quoi qui où quand pourquoi je tu il elle nous vous ils avec pour par dans sur au aux ce cette ces mon ma mes pas peut ' +
  'el los las una unos unas del y o es son cómo como qué que quién dónde cuándo por para con en al lo mi mis su sus se puedo puede').split(' '));

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
  // Each list weighs by how much it can be trusted for this question: lexical by how much of the question
  // its best hits contain, vectors by their best similarity; a list with nothing relevant still breaks ties.
  const lexRel = new Map(lexHits.map((h) => [h.id, coverageRelevance(h.coverage)]));
  const vecRel = new Map(vecHits.map((h) => [h.id, similarityRelevance(h.score)]));
  const lexTrust = 0.2 + Math.max(0, ...lexHits.slice(0, 3).map((h) => coverageRelevance(h.coverage)));
  const vecTrust = 0.2 + (vecHits.length ? similarityRelevance(vecHits[0].score) : 0);
  const fused = new Map<string, number>();
  const addRanks = (hits: Array<{ id: string }>, w: number) => hits.forEach((h, rank) => fused.set(h.id, (fused.get(h.id) ?? 0) + w / (RRF_K + rank + 1)));
  addRanks(lexHits, lexTrust);
  addRanks(vecHits, vecTrust);
  const ordered = [...fused.entries()].sort((a, b) => b[1] - a[1]).slice(0, opts.topK * 4).map(([id]) => id);
  const records = ordered.length ? await knowledgeCollections(app).chunks.find({ workspaceId, _id: { $in: ordered } }) : [];
  const byId = new Map(records.map((r) => [r._id, r]));
  // Diversity: a document gives at most PER_DOCUMENT excerpts until the other documents' candidates are used.
  const perDoc = new Map<string, number>();
  const first: string[] = [];
  const later: string[] = [];
  for (const id of ordered) {
    const r = byId.get(id);
    // A hit whose record is gone (deleted between the two reads) is skipped, not shown empty.
    if (!r) continue;
    const n = perDoc.get(r.documentId) ?? 0;
    perDoc.set(r.documentId, n + 1);
    (n < PER_DOCUMENT ? first : later).push(id);
  }
  const results: SearchResult[] = [...first, ...later].slice(0, opts.topK).map((id) => {
    const r = byId.get(id)!;
    const score = Math.max(lexRel.get(id) ?? 0, vecRel.get(id) ?? 0);
    return { chunkId: id, documentId: r.documentId, sourceId: r.sourceId, title: r.title, url: r.url, excerpt: r.text, score: Number(score.toFixed(4)) };
  });
  const best = Math.max(0, ...lexHits.slice(0, 3).map((h) => coverageRelevance(h.coverage)), ...vecHits.slice(0, 3).map((h) => similarityRelevance(h.score)));
  const relevant = results.length > 0 && best >= RELEVANT_MIN;
  const mode: SearchMode = want === 'lexical' ? 'lexical' : want === 'vector' ? 'vector' : usedVectors ? 'hybrid' : 'lexical';
  return warning ? { results, mode, relevant, warning } : { results, mode, relevant };
}

/** Lexical coverage as a relevance from 0 to 1: two straight pieces, LEXICAL_COVERAGE_MIN is 0.5, 1 stays 1. */
export function coverageRelevance(coverage: number): number {
  const c = Math.min(1, Math.max(0, coverage));
  return c <= LEXICAL_COVERAGE_MIN ? (c / LEXICAL_COVERAGE_MIN) * 0.5 : 0.5 + ((c - LEXICAL_COVERAGE_MIN) / (1 - LEXICAL_COVERAGE_MIN)) * 0.5;
}

/** Cosine similarity as a relevance from 0 to 1: linear, VECTOR_SIMILARITY_MIN is 0.5, 0.3 is 0 and 0.8 is 1. */
export function similarityRelevance(similarity: number): number {
  return Math.min(1, Math.max(0, 0.5 + (similarity - VECTOR_SIMILARITY_MIN) * 2));
}
