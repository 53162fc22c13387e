/**
 * Gap signals tried against the `relevant` verdict (issue 24, after the fourth pass), replayed offline with the
 * server's own chunking, lexical index, query terms and verdict (src/knowledge/fusion.ts), no server:
 *
 *   npx tsx bench/knowledge-gaps.ts [--model] [--held-out] [--third]
 *
 * For each candidate rule: answerable questions still marked relevant and unanswerable ones recognised, on the
 * even and odd halves of test/fixtures/knowledge-eval (where a rule must show a gain on both halves to be
 * kept); with --held-out on test/fixtures/knowledge-eval-2 as well, and with --third on test/fixtures/knowledge-eval-3
 * (measure there, never choose there).
 * --model adds the built-in model's similarity between an English question and its best three passages (and
 * their heading paths); about a minute of CPU.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkMarkdown } from '../src/documents/chunk.js';
import { lexicalEntry } from '../src/knowledge/indexer.js';
import { parseDocument } from '../src/documents/parse.js';
import type { KnowledgeChunk } from '../src/knowledge/types.js';
import { coverageRelevance, GENERIC_SHARE_MIN, looksEnglish, RELEVANT_MIN, UNKNOWN_SHARE_MAX } from '../src/knowledge/fusion.js';
import { queryTerms } from '../src/knowledge/search.js';
import { openEmbeddedLexical, type LexicalHit } from '../src/store/lexical-embedded.js';
import { idf, norm } from '../src/store/lexical-terms.js';

interface Hit extends LexicalHit { has: boolean[]; words: string[]; heading: string; text: string }
interface Row { i: number; q: string; answerable: boolean; english: boolean; n: number; terms: Array<{ t: string; df: number }>; hits: Hit[]; simHead?: number[]; simBody?: number[] }

const words = (t: string) => (t.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).map(norm);

async function features(set: string): Promise<Row[]> {
  const dir = new URL(`../test/fixtures/${set}/`, import.meta.url).pathname;
  const lex = openEmbeddedLexical(null);
  const textOf = new Map<string, { heading: string; text: string }>();
  for (const file of readdirSync(join(dir, 'corpus')).filter((f) => f.endsWith('.md')).sort()) {
    // The server's own title rule and entry shape (the document title and the heading path are the entry's title).
    const { title, markdown } = await parseDocument(readFileSync(join(dir, 'corpus', file)), 'markdown', { filename: file });
    await lex.upsert(chunkMarkdown(markdown).map((c, i) => {
      const entry = lexicalEntry({ _id: `${file}#${i}`, workspaceId: 'w', sourceId: 's', documentId: file, title, heading: c.heading, text: c.text } as KnowledgeChunk);
      textOf.set(entry.id, { heading: entry.title, text: entry.text });
      return entry;
    }));
  }
  const questions = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) as Array<{ q: string; docs: string[] }>;
  const rows: Row[] = [];
  for (const [i, { q, docs }] of questions.entries()) {
    const terms = queryTerms(q);
    // A term's passages, typo correction included: the index answers a one-term search with every passage holding it.
    const holders = await Promise.all(terms.map(async (t) => new Set((await lex.search('w', [t], { limit: 10_000 })).map((h) => h.id))));
    const hits = (await lex.search('w', terms, { limit: 50 })).slice(0, 3).map((h) => {
      const { heading, text } = textOf.get(h.id)!;
      return { ...h, heading, text, words: words(`${heading}\n${text}`), has: holders.map((s) => s.has(h.id)) };
    });
    rows.push({ i, q, answerable: docs.length > 0, english: looksEnglish(q), n: textOf.size, terms: terms.map((t, k) => ({ t, df: holders[k].size })), hits });
  }
  await lex.close();
  return rows;
}

/** The verdict as src/knowledge/fusion.ts gives it, with a hit's coverage and the coverage point replaceable. */
function relevant(r: Row, coverage: (r: Row, h: Hit) => number, point = 0.24): boolean {
  const unknown = (r.hits[0]?.unknownShare ?? 0) >= UNKNOWN_SHARE_MAX;
  const generic = Math.min(1, ...r.hits.map((h) => h.rarestShare)) >= GENERIC_SHARE_MIN;
  const offTopic = unknown && (r.english || generic);
  return r.hits.some((h) => { const rel = coverageRelevance(coverage(r, h) * (0.24 / point)); return (offTopic ? Math.min(0.45, rel) : rel) >= RELEVANT_MIN; });
}

/** The server's coverage: over every word for an English question, over the words the documents know for another. */
const same = (r: Row, h: Hit) => (r.english ? h.coverage : h.knownCoverage);
/** Coverage with a word found nowhere weighing `unknownWeight` (the server: the question's rarest found word). */
const coverageWith = (unknownWeight: (r: Row) => number) => (r: Row, h: Hit) => {
  const w = r.terms.map((t) => (t.df > 0 ? idf(t.df, r.n) : unknownWeight(r)));
  const total = w.reduce((a, b) => a + b, 0);
  return total ? w.reduce((s, x, k) => s + (h.has[k] ? x : 0), 0) / total : 0;
};
const at = (h: Hit, t: string) => { const k = norm(t); return h.words.flatMap((w, j) => (w === k || (k.length >= 5 && w.startsWith(k.slice(0, k.length - 2))) ? [j] : [])); };
/** Neighbouring question terms (a noun phrase, roughly) found within `win` words of each other in the passage. */
function pairShare(r: Row, h: Hit, win: number): { n: number; share: number } {
  let n = 0, got = 0;
  for (let i = 0; i + 1 < r.terms.length; i++) {
    n++;
    const a = at(h, r.terms[i].t), b = at(h, r.terms[i + 1].t);
    if (a.some((x) => b.some((y) => Math.abs(x - y) <= win))) got++;
  }
  return { n, share: n ? got / n : 1 };
}
/** Coverage without the question's rare words (in at most 2 passages) that stand more than `far` words from every other matched word. */
const withoutIsolatedRare = (far: number) => (r: Row, h: Hit) => {
  const pos = r.terms.map((t, k) => (h.has[k] ? at(h, t.t) : []));
  const strict = r.terms.map((t, k) => h.has[k] && !(t.df <= 2 && pos[k].length && !pos.some((p, m) => m !== k && p.some((x) => pos[k].some((y) => Math.abs(x - y) <= far)))));
  return coverageWith((x) => Math.max(0, ...x.terms.filter((t) => t.df > 0).map((t) => idf(t.df, x.n))))(r, { ...h, has: strict });
};
const rarestIdf = (r: Row) => Math.max(0, ...r.terms.filter((t) => t.df > 0).map((t) => idf(t.df, r.n)));
const englishOnly = (f: (r: Row, h: Hit) => number, point: number) => (r: Row, h: Hit) => (r.english ? f(r, h) : h.knownCoverage * (point / 0.24));

const foreignOnly = (f: (r: Row, h: Hit) => number) => (r: Row, h: Hit) => (r.english ? h.coverage : f(r, h));
/** Names in the question (a capital inside the sentence, or an acronym) that the documents never use. */
const unknownNames = (r: Row) => {
  const names = new Set((r.q.match(/(?<=\S\s+)\p{Lu}[\p{L}\p{N}]*|\b\p{Lu}{2,}\b/gu) ?? []).map((w) => w.toLowerCase()));
  return r.terms.filter((t) => t.df === 0 && names.has(t.t));
};

type Rule = [name: string, says: (r: Row) => boolean];
const rules: Rule[] = [
  ['current verdict', (r) => relevant(r, same)],
  ...[0.24, 0.2, 0.18].map((p): Rule => [`unknown word = highest IDF, point ${p} (English)`, (r) => relevant(r, englishOnly(coverageWith((x) => idf(0, x.n)), p), p)]),
  ['unknown word = IDF of 1 passage', (r) => relevant(r, coverageWith((x) => idf(1, x.n)))],
  ...[3, 6].map((w): Rule => [`no question word pair within ${w} words (English, 2+ pairs)`, (r) => relevant(r, same) && !(r.english && r.hits.every((h) => { const p = pairShare(r, h, w); return p.n >= 2 && p.share === 0; }))]),
  ...[0.5, 0.75].flatMap((a) => [0.24, 0.18].map((p): Rule => [`coverage x (${a} + ${1 - a} x pair share), point ${p} (English)`, (r) => relevant(r, englishOnly((x, h) => h.coverage * (a + (1 - a) * pairShare(x, h, 3).share), p), p)])),
  ...[10, 20, 40].map((f): Rule => [`isolated rare words do not count (${f} words)`, (r) => relevant(r, withoutIsolatedRare(f))]),
  ...[0.05, 0.1].map((s): Rule => [`an unknown word and matched words all in ${s * 100}%+ of passages (English)`, (r) => relevant(r, same) && !(r.english && (r.hits[0]?.unknownShare ?? 0) > 0 && Math.min(1, ...r.hits.map((h) => h.rarestShare)) >= s)]),
  ...[0.3, 0.4].map((s): Rule => [`model: heading path similarity < ${s} (English)`, (r) => relevant(r, same) && !(r.english && r.simHead?.length && Math.max(...r.simHead) < s)]),
  ['not English: a word found nowhere weighs as the commonest found word', (r) => relevant(r, foreignOnly(coverageWith((x) => Math.min(...x.terms.filter((t) => t.df > 0).map((t) => idf(t.df, x.n))))))],
  ['not English: a word found nowhere weighs half the rarest found word', (r) => relevant(r, foreignOnly(coverageWith((x) => rarestIdf(x) / 2)))],
  ['a name the documents never use (capital inside the sentence, acronym)', (r) => relevant(r, same) && unknownNames(r).length === 0],
  ['... English questions only', (r) => relevant(r, same) && !(r.english && unknownNames(r).length > 0)],
  ...[0.4, 0.5].map((s): Rule => [`model: passage similarity < ${s} (English)`, (r) => relevant(r, same) && !(r.english && r.simBody?.length && Math.max(...r.simBody) < s)]),
];

async function addSimilarities(rows: Row[]) {
  const { embedLocally } = await import('../src/providers/local-model.js');
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
  for (const r of rows.filter((x) => x.english && x.hits.length)) {
    const [q, ...v] = await embedLocally([r.q, ...r.hits.map((h) => h.heading.replace(/[`>]/g, ' ')), ...r.hits.map((h) => h.text)]);
    r.simHead = v.slice(0, r.hits.length).map((x) => dot(q, x));
    r.simBody = v.slice(r.hits.length).map((x) => dot(q, x));
  }
}

const model = process.argv.includes('--model');
const columns: Array<[string, Row[]]> = [];
const first = await features('knowledge-eval');
columns.push(['undici even', first.filter((r) => r.i % 2 === 0)], ['undici odd', first.filter((r) => r.i % 2 === 1)]);
if (process.argv.includes('--held-out')) columns.push(['held out (pino, piscina)', await features('knowledge-eval-2')]);
if (process.argv.includes('--third')) columns.push(['third (fastify)', await features('knowledge-eval-3')]);
if (model) for (const [, rows] of columns) await addSimilarities(rows);
console.log(`\nanswerable marked relevant / unanswerable recognised\n${'rule'.padEnd(66)} ${columns.map(([n]) => n.padEnd(14)).join(' ')}`);
for (const [name, says] of rules) {
  if (name.startsWith('model') && !model) continue;
  const cell = (rows: Row[]) => { const a = rows.filter((r) => r.answerable), u = rows.filter((r) => !r.answerable); return `${a.filter(says).length}/${a.length} ${u.filter((r) => !says(r)).length}/${u.length}`; };
  console.log(`${name.padEnd(66)} ${columns.map(([, rows]) => cell(rows).padEnd(14)).join(' ')}`);
}
