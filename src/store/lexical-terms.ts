/**
 * Term helpers of the lexical index: a light normal form shared by query and text (so coverage agrees with
 * the porter stemmer most of the time), IDF weights, and typo expansion against the index's vocabulary.
 */

/** Lower case, no diacritics, common English endings cut: "Requests" ~ "request", "débogage" ~ "debogag". */
export function norm(word: string): string {
  let w = word.toLowerCase();
  if (!/^[\x00-\x7f]*$/.test(w)) w = w.normalize('NFD').replace(/\p{M}+/gu, '');
  if (w.length <= 4) return w;
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'ied', 'ers', 'er', 'ed', 'es', 'ly', 's', 'e', 'y']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) { w = w.slice(0, -suffix.length); break; }
  }
  return w;
}

/** Words of a text in normal form. */
export const normWords = (text: string): Set<string> => new Set((text.match(/[\p{L}\p{N}_]+/gu) ?? []).map(norm));

/** BM25's inverse document frequency (always positive): rare terms weigh more. */
export const idf = (df: number, n: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * Damerau-Levenshtein distance (adjacent swaps count one), or max + 1 once it must exceed max: most
 * vocabulary words are rejected after a row or two.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      cur.push(d);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length];
}

/**
 * Prefixes whose vocabulary words are candidates for correcting a word: its first two letters, and its
 * first and third (a wrong, missing or swapped second letter). A typo in the first letter is not corrected.
 */
export function correctionPrefixes(word: string): string[] {
  const key = norm(word);
  if (key.length < 4 || /\d/.test(key)) return [];
  return [...new Set([key.slice(0, 2), key[0] + key[2]])];
}

/**
 * The correction for a word absent from the index among vocabulary words (stemmed tokens with their
 * document counts): the most frequent one within edit distance 1 (words of 5-6 letters) or 2 (longer). A
 * word of 4 letters (after its ending is cut) is corrected only by a swap of neighbours ("pnig" -> "ping"):
 * one letter more, less or changed turns most short words into another real word ("cost" -> "const",
 * "render" -> "read", German "lange" -> "land"), and the false match makes a question look answered.
 * An indexed stem the word starts with counts as distance 1 ("connecton" -> "connect", "certifcate" -> "certif").
 */
/** Letters after an indexed stem that still count as its ending when correcting (-ion, -ate, -ing...). */
const STEM_ENDING = 3;

export function bestCorrection(word: string, vocabulary: Iterable<{ term: string; doc: number }>): { term: string; df: number } | null {
  const key = norm(word);
  if (key.length < 4 || /\d/.test(key)) return null;
  const max = key.length <= 6 ? 1 : 2;
  let best: { term: string; df: number; d: number } | null = null;
  for (const v of vocabulary) {
    if (v.term.length < 3) continue;
    const t = norm(v.term);
    if (key.length === 4 && (t.length !== 4 || [...key].sort().join('') !== [...t].sort().join(''))) continue;
    let d = editDistance(key, t, max);
    // The vocabulary holds porter stems ("connect", "certif"), which a misspelt ending puts far from the word
    // ("connecton" is 2 from "connect", 1 from "connector"): a stem of 5+ letters the word starts with, followed
    // by at most STEM_ENDING letters, counts as one edit, like an ending the stemmer would have cut.
    if (d > 1 && t.length >= 5 && key.startsWith(t) && key.length - t.length <= STEM_ENDING) d = 1;
    if (d <= max && (!best || d < best.d || (d === best.d && v.doc > best.df))) best = { term: v.term, df: v.doc, d };
  }
  return best && { term: best.term, df: best.df };
}
