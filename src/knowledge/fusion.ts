import type { SimilarityCalibration } from './calibration.js';

/**
 * How a search's two candidate lists become one ranking, a relevance per passage and the `relevant` verdict.
 * Pure functions of the lists, so bench/knowledge-fusion.ts can tune them offline on recorded lists with the
 * very code the server runs. The constants are in docs/knowledge.md ("Score", "Fusion").
 */

/** A lexical hit as fusion sees it: BM25 `score` and `unknownShare` are absent in lists recorded before they existed. */
export interface LexicalCandidate { id: string; coverage: number; contextCoverage?: number; knownCoverage?: number; score?: number; unknownShare?: number; rarestShare?: number }
export interface VectorCandidate { id: string; score: number }

/** How one embedder's cosine similarities read as relevance: `min` counts 0.5, 0.25 below it 0, 0.25 above 1. */
export interface SimilarityScale { min: number }

export interface FusionParams {
  /** The usual RRF constant: damps the weight of the very first ranks. */
  rrfK: number;
  /** Trust of a list whose best hits say nothing: it still breaks ties. */
  trustFloor: number;
  /** Multiplies the vector list's trust (below 1: the model's ranks count less than the words'). */
  vectorWeight: number;
  /** A model that knows English only: for a question in another language its list neither ranks nor judges. */
  englishOnly: boolean;
  similarity: SimilarityScale;
}

/**
 * Coverage that counts as a relevance of 0.5. Calibrated on bench/knowledge-eval.ts: from 0.23 to 0.26
 * 88-91% of the answerable questions are marked relevant at precision 0.90-0.91; a missed answer costs more
 * than a missed gap (the agent gets no excerpts at all when a search is not relevant), so the low end.
 */
export const LEXICAL_COVERAGE_MIN = 0.24;
/**
 * How much coverage counts beside BM25 when the lexical list is reordered (rerankLexical). BM25 lets one rare
 * word said many times in a short chunk beat a chunk holding most of the question's words; tuned on the even
 * half of bench/knowledge-eval.ts (MRR@10 0.679 -> 0.709 as it rose from 0 to 0.5, 0.717 at 1 but the odd half
 * fell, so 0.5; the held-out odd half stayed at 0.680: a fix for a real failure, no measured gain held out).
 */
export const LEXICAL_COVERAGE_WEIGHT = 0.5;
/**
 * An English question of which at least this share of the words appears nowhere in the documents (even after
 * typo correction) is about something else: its lexical relevance stays below RELEVANT_MIN. Calibrated on the
 * even half of the evaluation; questions in other languages are exempt (their words are mostly not the
 * documents' language, answerable or not).
 */
export const UNKNOWN_SHARE_MAX = 0.5;
/**
 * A question (in any language) of which UNKNOWN_SHARE_MAX or more of the words appear nowhere, and whose best
 * three passages share with it only words found in at least this share of all passages ("cliente" in a
 * client library's docs), meets the documents on vocabulary, not on a topic: not relevant by words either.
 * Set on the even half of the evaluation: its answerable questions' most specific matched word was in at most
 * 13.7% of the passages (German "Server ... Header"); 0.2 is one passage in five.
 */
export const GENERIC_SHARE_MIN = 0.2;
/** The highest lexical relevance of a question that UNKNOWN_SHARE_MAX marks as about something else. */
const UNKNOWN_RELEVANCE_CAP = 0.45;
/** A relevance at or above this means "likely answers". */
export const RELEVANT_MIN = 0.5;

/** A provider's model: the point used before any real model was measured. */
export const PROVIDER_FUSION: FusionParams = { rrfK: 60, trustFloor: 0.2, vectorWeight: 1, englishOnly: false, similarity: { min: 0.55 } };

/**
 * The embedded model (Universal Sentence Encoder lite): it knows English only, and a similarity of 0.65 counts 0.5
 * for the verdict (the English questions with no answer reached 0.40-0.58, answerable ones 0.36-0.73: the model
 * alone does not tell gaps apart). Its list is weighed like a provider's, by the calibration (CALIBRATED); the
 * hand-tuned 0.4 it had before issue 39 left it under words alone on the fastify set.
 */
export const LOCAL_FUSION: FusionParams = { rrfK: 60, trustFloor: 0.2, vectorWeight: 1, englishOnly: true, similarity: { min: 0.65 } };

// Function words of German, French and Spanish that are not English words: one of them in a question marks it
// as not English. Other scripts than Latin count as not English too.
const FOREIGN = new Set(('der das dem des ein eine einen einem einer und oder ist sind wie wer wo wann warum ich du sie es wir ihr mit von zu zum zur im auf aus bei für nicht kann können muss welche wenn dass ob auch noch nur schon sehr über unter durch ohne gegen mein meine ' +
  'le la les un une du et ou est sont comment quoi qui où quand pourquoi je tu il elle nous vous ils avec pour par dans sur au aux ce cette ces mon ma mes pas peut quel quelle sans très avoir être faire ' +
  'el los las una unos unas del es cómo como qué que quién dónde cuándo por para con en al lo mis su sus se puedo puede cuál cual debe entre muy más este esta tengo tiene hacer').split(' '));

/** Whether a question reads as English: no German, French or Spanish function word, Latin letters only. */
export function looksEnglish(query: string): boolean {
  if (/[^\p{Script=Latin}\p{M}\p{N}\p{P}\p{S}\s]/u.test(query)) return false;
  const words = query.toLowerCase().match(/[\p{L}]+/gu) ?? [];
  return !words.some((w) => FOREIGN.has(w));
}

/**
 * The lexical list reordered by BM25 (as a share of the best hit's) plus LEXICAL_COVERAGE_WEIGHT times coverage:
 * a passage holding more of the question's distinctive words moves up. Ties keep BM25 order; a list without
 * BM25 scores (recorded by an older bench) is returned as it is.
 */
export function rerankLexical<T extends LexicalCandidate>(hits: T[]): T[] {
  const top = Math.max(0, ...hits.map((h) => h.score ?? 0));
  if (!(top > 0)) return hits;
  const key = (h: T) => (h.score ?? 0) / top + LEXICAL_COVERAGE_WEIGHT * (h.contextCoverage ?? h.coverage);
  return hits.map((h, i) => ({ h, i, k: key(h) })).sort((a, b) => b.k - a.k || a.i - b.i).map((x) => x.h);
}

/** Lexical coverage as a relevance from 0 to 1: two straight pieces, LEXICAL_COVERAGE_MIN is 0.5, 1 stays 1. */
export function coverageRelevance(coverage: number): number {
  const c = Math.min(1, Math.max(0, coverage));
  return c <= LEXICAL_COVERAGE_MIN ? (c / LEXICAL_COVERAGE_MIN) * 0.5 : 0.5 + ((c - LEXICAL_COVERAGE_MIN) / (1 - LEXICAL_COVERAGE_MIN)) * 0.5;
}

/** Cosine similarity as a relevance from 0 to 1: linear, `scale.min` is 0.5, 0.25 below it is 0, 0.25 above is 1. */
export function similarityRelevance(similarity: number, scale: SimilarityScale = PROVIDER_FUSION.similarity): number {
  return Math.min(1, Math.max(0, 0.5 + (similarity - scale.min) * 2));
}

export interface Fused {
  /** Candidate ids, best first (before diversity). */
  order: string[];
  /** Each candidate's relevance, the larger of what its lexical and vector hits say. */
  relevance: Map<string, number>;
  /** The best relevance among the first three hits of either list: RELEVANT_MIN and above is a plausible answer. */
  best: number;
  /** The weight the vector list got against the lexical list's 1 (0: lexical order, vectors only add what words missed). */
  vectorShare: number;
}

/**
 * How a calibrated model's list is weighed per question (issue 39): by how far its best similarity stands above its
 * last candidate's, in standard deviations of the similarity of unrelated passages of the knowledge base (z); the
 * list counts from `zMin` (nothing below: no signal) to full at `zFull`, times how far its first documents agree
 * with the lexical list's. Tuned with
 * bench/knowledge-fusion.ts on the undici and README sets (docs/knowledge.md, "Calibrated fusion"); after the
 * lexical order changed (headings, neighbours) the signal points moved from 0.5-4.5 to 0-4, chosen on all five sets:
 * at 0.5-4.5 a list with a weight of 0.02 reordered two neighbouring lexical hits for the worse on pino/piscina.
 */
export interface CalibratedWeighting {
  zMin: number;
  zFull: number;
  /** Documents compared at the top of both lists. */
  agreeTop: number;
  /** The weight's share that needs no agreement (0: a list that agrees on nothing does not count). */
  agreeFloor: number;
  /** The vector list's largest weight against the lexical list's 1. */
  weight: number;
  /**
   * Whether the lexical list's first document keeps first place unless the vector list backs the passage that would
   * take it (that passage's document is the vector list's first) and does not back the lexical first (its document
   * is not among the vector list's first `agreeTop`). RRF reads ranks, not margins: a list at a small weight swaps
   * the words' first and second whenever it likes the second a little more, and an embedder whose similarities
   * only echo word counts (the weak one) does so often, on a first the words chose well. Absent: false.
   */
  guardFirst?: boolean;
}

/**
 * Issue 39, fourth part: the lexical first guarded (guardFirst), agreement over the first five documents and half
 * the weight needing none, chosen with bench/knowledge-fusion.ts --sweep on the recorded lists of sets 1-5 (the
 * model as a provider and replayed as the built-in, the weak and the fake embedder: 24 lists); the only settings
 * whose worst gain over words alone is 0 on all of them (before: the weak list -0.025 MRR@10 on the fifth set).
 */
export const CALIBRATED: CalibratedWeighting = { zMin: 0, zFull: 4, agreeTop: 5, agreeFloor: 0.5, weight: 0.25, guardFirst: true };

export interface FuseContext {
  /** The embedder's similarity scale in this knowledge base; null or absent: not calibrated (lexical order). */
  calibration?: SimilarityCalibration | null;
  /** A candidate's document (agreement is counted by document). */
  documentOf?: (id: string) => string | undefined;
  weighting?: CalibratedWeighting;
}

/** Share of the first `top` documents of one list found among the first `top` of the other. */
export function agreement(a: string[], b: string[], top: number, documentOf: (id: string) => string | undefined): number {
  const docs = (ids: string[]) => { const out: string[] = []; for (const id of ids) { const d = documentOf(id) ?? id; if (!out.includes(d)) out.push(d); if (out.length >= top) break; } return out; };
  const da = docs(a), db = new Set(docs(b));
  if (!da.length || !db.size) return 0;
  return da.filter((d) => db.has(d)).length / Math.min(top, Math.max(da.length, db.size));
}

/**
 * The weight of a calibrated vector list for one question, 0 to `weighting.weight`. Its signal is how far the best
 * similarity stands above the list's last one (the 50th candidate), in standard deviations of the similarity of
 * unrelated passages: a scale of the model's own, so the same points fit every model. (The best similarity against
 * the unrelated passages' mean does not work: a short question is further from every passage than passages are
 * from each other, so a good model's best hits sit below its passages' chance level.)
 */
export function vectorWeightOf(scores: number[], calibration: SimilarityCalibration, agree: number, w: CalibratedWeighting = CALIBRATED): number {
  if (scores.length < 2) return 0;
  const z = (scores[0] - scores[scores.length - 1]) / calibration.nullSd;
  const signal = Math.min(1, Math.max(0, (z - w.zMin) / Math.max(1e-6, w.zFull - w.zMin)));
  return w.weight * signal * (w.agreeFloor + (1 - w.agreeFloor) * agree);
}

/**
 * The two lists as one ranking. The lexical list (reordered by coverage, rerankLexical) is the base; the vector
 * list adds reciprocal-rank votes weighted per question by vectorWeightOf: a model whose similarities sit at
 * chance level for this question, or whose best documents share nothing with the words', leaves the lexical order
 * as it is. The words' first document keeps first place unless the vector list puts the passage that would take it
 * first and leaves the words' first out of its top documents (guardFirst). Passages only the vectors found come
 * after the lexical ones when the vectors carry no weight (a
 * question with no word in the documents still gets the model's answers). Without a calibration the model's
 * scale is unknown: lexical order, vector-only passages after it.
 */
export function fuse(lexHits: LexicalCandidate[], vectorHits: VectorCandidate[], p: FusionParams, query: string, ctx: FuseContext = {}): Fused {
  const english = looksEnglish(query);
  const vec = p.englishOnly && vectorHits.length && !english ? [] : vectorHits;
  const unknown = (lexHits[0]?.unknownShare ?? 0) >= UNKNOWN_SHARE_MAX;
  const generic = Math.min(1, ...lexHits.slice(0, 3).map((h) => h.rarestShare ?? 0)) >= GENERIC_SHARE_MIN;
  const offTopic = unknown && (english || generic);
  // A question in another language is judged on the words the documents know: its own words are unknown to
  // them whether or not the answer is there (issue 24, sixth pass).
  const relOf = (h: LexicalCandidate) => {
    const rel = coverageRelevance(english ? h.coverage : (h.knownCoverage ?? h.coverage));
    return offTopic ? Math.min(UNKNOWN_RELEVANCE_CAP, rel) : rel;
  };
  // The verdict reads the first three hits in BM25 order (what it was calibrated on): the reranked top three
  // hold more of the question's words by construction.
  const bm25Top = lexHits.slice(0, 3).map(relOf);
  const lex = rerankLexical(lexHits);
  const lexRel = lex.map(relOf);
  const vecRel = vec.map((h) => similarityRelevance(h.score, p.similarity));
  const top3 = (xs: number[]) => Math.max(0, ...xs.slice(0, 3));
  const documentOf = ctx.documentOf ?? ((id: string) => id);
  const w = ctx.weighting ?? CALIBRATED;
  const vecWeight = vec.length && ctx.calibration
    ? vectorWeightOf(vec.map((h) => h.score), ctx.calibration, agreement(lex.map((h) => h.id), vec.map((h) => h.id), w.agreeTop, documentOf), w) * p.vectorWeight
    : 0;
  const fused = new Map<string, number>();
  const relevance = new Map<string, number>();
  const add = (ids: string[], rel: number[], weight: number) => ids.forEach((id, rank) => {
    fused.set(id, (fused.get(id) ?? 0) + weight / (p.rrfK + rank + 1));
    relevance.set(id, Math.max(relevance.get(id) ?? 0, rel[rank]));
  });
  add(lex.map((h) => h.id), lexRel, 1);
  add(vec.map((h) => h.id), vecRel, vecWeight);
  // Stable: equal scores (vector-only passages at weight 0) keep the order they were added in.
  const order = [...fused.entries()].map(([id, v], i) => ({ id, v, i })).sort((a, b) => b.v - a.v || a.i - b.i).map((x) => x.id);
  if (w.guardFirst && lex.length && documentOf(order[0]) !== documentOf(lex[0].id) && !vectorBacks(order[0], lex[0].id, vec, w.agreeTop, documentOf)) {
    order.splice(order.indexOf(lex[0].id), 1);
    order.unshift(lex[0].id);
  }
  return { order, relevance, best: Math.max(top3(bm25Top), top3(vecRel)), vectorShare: vecWeight };
}

/** Whether the vector list backs `challenger` over the lexical first: its document first there, the lexical first's not in the top `top`. */
function vectorBacks(challenger: string, lexFirst: string, vec: VectorCandidate[], top: number, documentOf: (id: string) => string | undefined): boolean {
  const docs: string[] = [];
  for (const h of vec) { const d = documentOf(h.id) ?? h.id; if (!docs.includes(d)) docs.push(d); if (docs.length >= top) break; }
  return docs[0] === (documentOf(challenger) ?? challenger) && !docs.includes(documentOf(lexFirst) ?? lexFirst);
}

/**
 * Diversity: a document gives at most `perDocument` excerpts until every other candidate document has given
 * its best (on the evaluation, 2 per document lost 0.05 recall@5: one long page crowded out the answer).
 */
export function diversify(order: string[], documentOf: (id: string) => string | undefined, perDocument = 1): string[] {
  const perDoc = new Map<string, number>();
  const first: string[] = [];
  const later: string[] = [];
  for (const id of order) {
    const doc = documentOf(id);
    // A hit whose record is gone (deleted between the two reads) is skipped, not shown empty.
    if (doc === undefined) continue;
    const n = perDoc.get(doc) ?? 0;
    perDoc.set(doc, n + 1);
    (n < perDocument ? first : later).push(id);
  }
  return [...first, ...later];
}

/**
 * Word-set overlap (Jaccard) from which two passages count as the same answer: a text repeated on two pages (an
 * option table copied from Client to Dispatcher, a notice on every page). At 0.7-0.85 no evaluation question lost
 * its answer's rank; at 0.5 passages that only share a page's boilerplate were pushed down (docs/knowledge.md).
 */
export const NEAR_DUPLICATE = 0.8;

/** A passage's words (with its heading path: the same text under another heading still counts as a copy at 0.8). */
const passageWords = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []);

/**
 * Near-identical passages after the rest: a passage whose words overlap an earlier one's by NEAR_DUPLICATE or
 * more moves behind every passage that is not such a copy, so the first results are different answers. Order
 * is otherwise kept; a passage without text (record gone) is left where it is.
 */
export function dropNearDuplicates(order: string[], textOf: (id: string) => string | undefined, threshold = NEAR_DUPLICATE): string[] {
  const kept: Array<Set<string>> = [];
  const first: string[] = [];
  const later: string[] = [];
  for (const id of order) {
    const text = textOf(id);
    if (text === undefined) { first.push(id); continue; }
    const words = passageWords(text);
    const copy = kept.some((k) => {
      let both = 0;
      for (const w of words) if (k.has(w)) both++;
      return both / Math.max(1, words.size + k.size - both) >= threshold;
    });
    if (copy) later.push(id);
    else { kept.push(words); first.push(id); }
  }
  return [...first, ...later];
}
