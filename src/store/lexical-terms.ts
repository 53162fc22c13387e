/**
 * Term helpers of the lexical index: a light normal form shared by query and text (so coverage agrees with
 * the porter stemmer most of the time), IDF weights, and typo expansion against the index's vocabulary.
 */

/** Lower case, no diacritics, common English endings cut: "Requests" ~ "request", "débogage" ~ "debogag". */
export function norm(word: string): string {
  let w = word.toLowerCase().normalize('NFD').replace(/\p{M}+/gu, '');
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
 * The index's vocabulary (stemmed tokens with their document counts), bucketed by length, for typo
 * expansion: a query word found nowhere is replaced by the most frequent vocabulary word within edit
 * distance 1 (words of 4-6 letters) or 2 (longer). Words under 4 letters and numbers are not expanded.
 */
export class Vocabulary {
  private byLength = new Map<number, Array<{ term: string; key: string; df: number }>>();

  constructor(rows: Iterable<{ term: string; doc: number }>) {
    for (const { term, doc } of rows) {
      if (term.length < 3 || /^\d+$/.test(term)) continue;
      const key = norm(term);
      let bucket = this.byLength.get(key.length);
      if (!bucket) this.byLength.set(key.length, (bucket = []));
      bucket.push({ term, key, df: doc });
    }
  }

  /** The correction for a word absent from the index, or null. */
  correct(word: string): { term: string; df: number } | null {
    const key = norm(word);
    if (key.length < 4 || /\d/.test(key)) return null;
    const max = key.length <= 6 ? 1 : 2;
    let best: { term: string; df: number; d: number } | null = null;
    for (let len = key.length - max; len <= key.length + max; len++) {
      for (const v of this.byLength.get(len) ?? []) {
        const d = editDistance(key, v.key, max);
        if (d <= max && (!best || d < best.d || (d === best.d && v.df > best.df))) best = { term: v.term, df: v.df, d };
      }
    }
    return best && { term: best.term, df: best.df };
  }
}
