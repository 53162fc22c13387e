import type { AppContext } from '../app/context.js';
import type { LexicalIndex } from '../store/lexical-embedded.js';
import { findEmbedder, vectorCollection } from './embeddings.js';
import type { QueryEmbeddings } from './query-embeddings.js';
import { diversify, dropNearDuplicates, fuse, LOCAL_FUSION, looksEnglish, PROVIDER_FUSION, RELEVANT_MIN, type FusionParams, type LexicalCandidate, type VectorCandidate } from './fusion.js';
import { loadCalibration, type SimilarityCalibration } from './calibration.js';
import { knowledgeCollections } from './collections.js';

/**
 * Hybrid search: BM25 over the lexical index always, cosine over vectors when the workspace has an embedder
 * (a provider connection or the embedded model), fused by reciprocal rank fusion weighted by each list's
 * trust, one excerpt per document up front (src/knowledge/fusion.ts).
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
  /** Given both candidate lists before fusion (bench/knowledge-eval.ts records them to tune fusion offline). */
  trace?: (lists: { lexical: LexicalCandidate[]; vector: VectorCandidate[]; calibration: SimilarityCalibration | null }) => void;
  signal?: AbortSignal;
}

/** Candidates taken from each side before fusion. */
const CANDIDATES = 50;

// Words that carry no topic (English, and the commonest German, French and Spanish ones); leaving them out
// keeps BM25 candidate lists short and coverage honest.
const STOP = new Set(('a an and are as at be but by can do does for from how i if in into is it its me my of on or our so that the their then there these they this to was we what when where which who why will with you your ' +
  'should would could about any all also have has had not no yes get use using want need tell please many much ' +
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

export async function hybridSearch(app: AppContext, lexical: LexicalIndex, queries: QueryEmbeddings, workspaceId: string, query: string, opts: SearchOptions): Promise<SearchOutcome> {
  const terms = queryTerms(query);
  const want = opts.mode ?? 'hybrid';
  const lexHits = want === 'vector' ? [] : await lexical.search(workspaceId, terms, { sourceIds: opts.sourceIds, limit: CANDIDATES });
  let vecHits: Array<{ id: string; score: number; payload?: Record<string, unknown> }> = [];
  let usedVectors = false;
  let fusionParams: FusionParams = PROVIDER_FUSION;
  let warning: string | undefined;
  let calibration: SimilarityCalibration | null = null;
  if (want !== 'lexical' && (!opts.sourceIds || opts.sourceIds.length)) {
    // Lexical search needs no provider: a failing embedding connection costs the vector side, not the answer.
    try {
      const embedder = await findEmbedder(app, workspaceId);
      // The embedded model knows English only: a question in another language is not embedded at all (the
      // fusion would drop its list); mode stays hybrid, the pipeline a workspace with vectors runs.
      if (embedder && !embedder.connection && LOCAL_FUSION.englishOnly && !looksEnglish(query)) usedVectors = true;
      else if (embedder) {
        const v = await queries.get(workspaceId, embedder, query, opts.signal);
        const filter = { workspaceId, embedder: embedder.key, ...(opts.sourceIds ? { sourceId: opts.sourceIds } : {}) };
        [vecHits, calibration] = await Promise.all([
          app.vectors.search(vectorCollection(v.length), v, { filter, limit: CANDIDATES }),
          loadCalibration(app, workspaceId, embedder.key),
        ]);
        usedVectors = true;
        if (!embedder.connection) fusionParams = LOCAL_FUSION;
      }
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      warning = `vector search unavailable, lexical results only: ${(err as Error)?.message ?? String(err)}`.slice(0, 500);
      app.log.warn({ err, workspaceId }, 'knowledge search fell back to lexical');
    }
  }
  const docOf = new Map<string, string>(lexHits.map((h) => [h.id, h.documentId]));
  for (const h of vecHits) if (typeof h.payload?.documentId === 'string') docOf.set(h.id, h.payload.documentId);
  const fused = fuse(lexHits, vecHits, fusionParams, query, { calibration, documentOf: (id) => docOf.get(id) });
  opts.trace?.({ lexical: lexHits.map((h) => ({ id: h.id, coverage: h.coverage, contextCoverage: h.contextCoverage, knownCoverage: h.knownCoverage, score: h.score, unknownShare: h.unknownShare, rarestShare: h.rarestShare })), vector: vecHits.map((h) => ({ id: h.id, score: h.score })), calibration });
  const ordered = fused.order.slice(0, opts.topK * 4);
  const records = ordered.length ? await knowledgeCollections(app).chunks.find({ workspaceId, _id: { $in: ordered } }) : [];
  const byId = new Map(records.map((r) => [r._id, r]));
  // One excerpt per document first, then near-identical passages (a text repeated on two pages) after the rest.
  const div = dropNearDuplicates(diversify(ordered, (id) => byId.get(id)?.documentId), (id) => byId.get(id)?.text);
  const results: SearchResult[] = div.slice(0, opts.topK).map((id) => {
    const r = byId.get(id)!;
    const score = fused.relevance.get(id) ?? 0;
    return { chunkId: id, documentId: r.documentId, sourceId: r.sourceId, title: r.title, url: r.url, excerpt: r.text, score: Number(score.toFixed(4)) };
  });
  const relevant = results.length > 0 && fused.best >= RELEVANT_MIN;
  const mode: SearchMode = want === 'lexical' ? 'lexical' : want === 'vector' ? 'vector' : usedVectors ? 'hybrid' : 'lexical';
  return warning ? { results, mode, relevant, warning } : { results, mode, relevant };
}
