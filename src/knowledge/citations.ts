/**
 * Which knowledge excerpts a reply relied on: only those are shown as citations (behavior.citations). The
 * model is never asked to mark its sources (markers are unreliable across models and would show in the text);
 * instead the reply is compared with each excerpt it was given. Words the reply shares with an excerpt but not
 * with the visitor's question are evidence the excerpt was used (every retrieved excerpt shares the question's
 * words, so those prove nothing); shared word pairs count double. An excerpt is cited when it carries at least
 * MIN_EVIDENCE and at least half the best excerpt's evidence, so a reply that used one of three excerpts cites
 * one, and "I don't know" cites none.
 */
import type { ToolResult } from '../tools/registry.js';

export type Citation = NonNullable<ToolResult['citations']>[number];

const MIN_EVIDENCE = 3;

// Words too common to be evidence (English plus the most frequent function words of the widget's languages).
const STOP = new Set(`a an and are as at be but by can do does for from has have how i if in is it its me my no not of on or our so
that the their them then there these they this to up us was we what when where which who why will with you your yes
der die das und ist nicht ein eine zu den mit von le la les et est un une des du pas pour que qui el los las y es en por con
il lo gli di che per non o de em os um uma para het een van op ze je`.split(/\s+/));

function words(text: string): string[] {
  return (text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w) && (w.length > 2 || /\d/.test(w)));
}

function pairs(ws: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < ws.length; i++) out.add(`${ws[i - 1]} ${ws[i]}`);
  return out;
}

/** The citations (one per document) whose excerpts the reply used; `excerpt` is dropped from what is returned. */
export function citationsUsed(reply: string, question: string, given: Array<Citation & { excerpt?: string }>): Citation[] {
  const asked = new Set(words(question));
  const said = words(reply);
  const novel = new Set(said.filter((w) => !asked.has(w)));
  const saidPairs = pairs(said);
  const scored = given.map((c) => {
    const ex = words(c.excerpt ?? `${c.title}`);
    const exWords = new Set(ex);
    let evidence = 0;
    for (const w of novel) if (exWords.has(w)) evidence++;
    for (const p of pairs(ex)) if (saidPairs.has(p)) evidence += 2;
    return { c, evidence };
  });
  const best = Math.max(0, ...scored.map((s) => s.evidence));
  const seen = new Set<string>();
  const out: Citation[] = [];
  for (const { c, evidence } of scored) {
    if (evidence < MIN_EVIDENCE || evidence < best / 2) continue;
    const key = `${c.sourceId}\n${c.title}\n${c.url ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ title: c.title, url: c.url, sourceId: c.sourceId });
  }
  return out;
}
