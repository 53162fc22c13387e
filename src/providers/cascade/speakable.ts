/**
 * Cuts the brain's streamed text into pieces that can be spoken one after another: whole sentences, so speech
 * synthesis starts on the first one while the model is still writing. A full stop ends a sentence only when
 * it is followed by a space and is not part of a number (3.5), an abbreviation (e.g., Dr.) or an initial;
 * Markdown (emphasis, code, links, headings, list markers, tables) is reduced to the words it shows.
 */

/** Never end a sentence after these (titles and Latin abbreviations), whatever follows. */
const TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'sr', 'jr', 'mt', 'no', 'nr', 'vs', 'e.g', 'i.e', 'cf', 'approx', 'ca', 'z.b', 'bzw', 'usw', 'ggf', 'vgl', 'p', 'pp', 'fig']);
/** These end a sentence only when a capital letter follows ("… 9 a.m. Tomorrow"). */
const SOFT = new Set(['etc', 'a.m', 'p.m', 'inc', 'ltd', 'co', 'corp', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'min', 'max', 'approx']);
/** A piece longer than this is cut at a comma (or a space) even without a sentence end, so speech starts. */
const MAX_PIECE = 220;
/** Where no full stop comes, a piece is cut at a clause break once it is this long. */
const CLAUSE_MIN = 90;

export class SpeakableSplitter {
  /** The line being written (raw), and how much of its clean text has been handed out already. */
  private line = '';
  private lineDone = 0;
  /** Inside a fenced code block: nothing of it is spoken. */
  private fenced = false;

  /** Adds streamed text; returns the pieces now complete (possibly none). */
  push(delta: string): string[] {
    const out: string[] = [];
    let rest = delta;
    // Markdown is read line by line: a heading, a list item or a table row is a piece of its own.
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
      this.line += rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      out.push(...this.endLine());
    }
    this.line += rest;
    if (!this.fenced && this.line) {
      const text = cleanLine(this.line, true).slice(this.lineDone);
      const pieces = splitSentences(text, false);
      const done = pieces.slice(0, -1);
      if (done.length) {
        // The clean text up to the start of the unfinished rest has been handed out.
        const restAt = text.lastIndexOf(pieces[pieces.length - 1]);
        this.lineDone += pieces[pieces.length - 1] ? restAt : text.length;
        out.push(...done);
      }
    }
    return out.filter(speakable);
  }

  /** The text has ended: whatever is left is the last piece. */
  flush(): string[] {
    return this.endLine().filter(speakable);
  }

  private endLine(): string[] {
    const line = this.line;
    const done = this.lineDone;
    this.line = '';
    this.lineDone = 0;
    if (/^\s*(```|~~~)/.test(line)) { this.fenced = !this.fenced; return []; }
    if (this.fenced) return [];
    return splitSentences(cleanLine(line).slice(done), true);
  }
}

const speakable = (p: string) => /[\p{L}\p{N}]/u.test(p);

/**
 * Cuts clean text into sentences. With `complete` false the last element is the unfinished rest (kept even when
 * empty), since its end may still change as text arrives.
 */
export function splitSentences(text: string, complete: boolean): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (!/[.!?…。！？;]/.test(ch)) {
      if (i - start >= MAX_PIECE) { const cut = clauseCut(text, start, i); out.push(text.slice(start, cut).trim()); start = cut; }
      continue;
    }
    // Runs of closing marks belong to the sentence: "Really?!", "end." followed by a quote or bracket.
    let end = i + 1;
    while (end < text.length && /[.!?…"'”’)\]]/.test(text[end])) end++;
    if (end >= text.length) {
      if (!complete) break;
      out.push(text.slice(start).trim());
      start = text.length;
      break;
    }
    if (!/\s/.test(text[end])) { i = end - 1; continue; }
    if (ch === '.') {
      // Only a full stop needs the next word to tell: abbreviations and initials end in one too.
      const next = text.slice(end).trimStart()[0];
      if (next === undefined && !complete) break;
      if (!isSentenceStop(text, start, i, next)) { i = end - 1; continue; }
    }
    if (ch === ';' && end - start < CLAUSE_MIN) { i = end - 1; continue; }
    out.push(text.slice(start, end).trim());
    start = end;
    i = end - 1;
  }
  const rest = text.slice(start).trim();
  if (!complete) out.push(rest);
  else if (rest) out.push(rest);
  return out.filter((p, k) => p || (!complete && k === out.length - 1));
}

/** Whether the full stop at `dot` ends a sentence, from the word before it and the character after the space. */
function isSentenceStop(text: string, start: number, dot: number, next: string | undefined): boolean {
  const word = /([\p{L}\p{N}.]+)$/u.exec(text.slice(start, dot))?.[1] ?? '';
  const lower = word.toLowerCase();
  if (TITLES.has(lower)) return false;
  // A single letter is an initial ("J. Smith"), unless a small word ends the sentence ("plan B.").
  if (/^\p{Lu}$/u.test(word) && word !== 'I' && next && /\p{Lu}/u.test(next)) return false;
  const upperNext = next !== undefined && /[\p{Lu}\p{N}"'“‘(]/u.test(next);
  if (SOFT.has(lower) || /^(\p{L}\.)+\p{L}$/u.test(word)) return upperNext;
  // A lowercase word after the stop means it was not the end of a sentence ("approx. ten", "ver. two").
  return next === undefined || !/\p{Ll}/u.test(next);
}

/** Where an over-long run without a sentence end is cut: after the last comma or clause mark, else a space. */
function clauseCut(text: string, start: number, at: number): number {
  const span = text.slice(start, at);
  const mark = Math.max(span.lastIndexOf(', '), span.lastIndexOf(': '), span.lastIndexOf(' – '), span.lastIndexOf(' — '));
  if (mark >= CLAUSE_MIN / 2) return start + mark + 1;
  const space = span.lastIndexOf(' ');
  return space > 0 ? start + space : at;
}

/**
 * One line of Markdown as words: heading, quote and list markers, emphasis, inline code, links and images,
 * table pipes and HTML tags are dropped; URLs are left out. `partial`: the line may still grow, so a marker
 * that has not closed yet (an open link) is left as it is.
 */
export function cleanLine(line: string, partial = false): string {
  let s = line;
  if (/^\s*\|?\s*:?-{3,}/.test(s)) return '';
  s = s.replace(/^\s{0,3}(#{1,6}\s+|>\s?)+/, '');
  s = s.replace(/^\s*([-*+•]|\d{1,3}[.)])\s+/, '');
  s = s.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1');
  s = s.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
  if (!partial) s = s.replace(/\[([^\]]+)\]\([^)]*$/g, '$1');
  s = s.replace(/<\/?[a-z][^>]*>/gi, '');
  s = s.replace(/https?:\/\/\S+/g, '');
  s = s.replace(/(\*{1,3}|_{2,3}|~~)(\S(?:.*?\S)?)\1/g, '$2');
  s = s.replace(/(^|[\s(])_(\S(?:.*?\S)?)_(?=$|[\s.,;:!?)])/g, '$1$2');
  // Markers left open (the line is still being written, or the model forgot to close them) are dropped too.
  s = s.replace(/[*`]+|~~/g, '').replace(/(^|\s)_+|_+(?=\s|$|[.,;:!?])/g, '$1');
  s = s.replace(/\s*\|\s*/g, (_m, off: number) => (off === 0 ? '' : ', ')).replace(/(,\s*)+$/, '');
  return s.replace(/\s+/g, ' ').trimStart();
}
