/**
 * Knowledge retrieval evaluation on questions written as visitors ask them (issue 24): the 42 API and
 * best-practice pages of undici's documentation (MIT, test/fixtures/knowledge-eval/corpus, shipped in
 * node_modules/undici/docs), 74 questions (35 paraphrased, 11 with typos, 6 each in German, French and
 * Spanish, 10 with no answer in the documents). A question counts as found when one of its answer
 * documents is among the results.
 *
 * Lexical and hybrid go through POST /api/v1/knowledge/search as an owner would; vector-only goes through
 * the same service call with mode 'vector' (the route has no mode switch). Vectors come from the embedded
 * model (Universal Sentence Encoder lite, chosen in the knowledge settings) or, with --embedder=fake, from
 * the FAKE embedding server of test/fakes (a hashed bag of words, plumbing only).
 *
 *   npx tsx bench/knowledge-eval.ts [--set=knowledge-eval-2] [--modes=lexical,vector,hybrid] [--misses] [--half=even|odd] [--embedder=embedded|fake] [--dump=FILE]
 *
 * Prints recall@5, MRR@10 and the share of answerable questions marked relevant / unanswerable ones
 * marked not relevant, per category, then precision and recall of `relevant` for "answerable" and a sweep
 * of the top result's score as the threshold.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { knowledge } from '../src/knowledge/service.js';
import type { SearchMode } from '../src/knowledge/search.js';
import { startFakeOpenAI } from '../test/fakes/openai.js';
import { setupOwner } from '../test/helpers/auth.js';
import { startTestServer } from '../test/helpers/server.js';
import { addProviderConnection } from '../test/knowledge/helpers.js';

export const EVAL_DIR = new URL('../test/fixtures/knowledge-eval/', import.meta.url).pathname;
// --set=knowledge-eval-2: the second, held-out set (pino and piscina docs, written after the four tuning passes).
const SET = process.argv.find((a) => a.startsWith('--set='))?.split('=')[1];
const setDir = SET ? new URL(`../test/fixtures/${SET}/`, import.meta.url).pathname : EVAL_DIR;
export interface Question { cat: string; q: string; docs: string[] }
export interface Outcome { question: Question; rank: number; relevant: boolean; topScore: number; topDocs: string[] }
export interface CategoryFigures { cat: string; n: number; recallAt5: number; mrr: number; relevantShare: number }

export const questions = (): Question[] => JSON.parse(readFileSync(join(setDir, 'questions.json'), 'utf8'));

/** Per category (and 'answerable' over all answerable ones): recall@5, MRR@10, share judged right by `relevant`. */
export function figures(outcomes: Outcome[]): CategoryFigures[] {
  const cats = [...new Set(outcomes.map((o) => o.question.cat))];
  const row = (cat: string, os: Outcome[]): CategoryFigures => {
    const answerable = os.filter((o) => o.question.docs.length);
    const n = os.length;
    const r5 = answerable.filter((o) => o.rank >= 0 && o.rank < 5).length;
    const rr = answerable.reduce((s, o) => s + (o.rank >= 0 && o.rank < 10 ? 1 / (o.rank + 1) : 0), 0);
    const right = os.filter((o) => o.relevant === o.question.docs.length > 0).length;
    const a = answerable.length || 1;
    return { cat, n, recallAt5: answerable.length ? r5 / a : NaN, mrr: answerable.length ? rr / a : NaN, relevantShare: right / n };
  };
  return [...cats.map((c) => row(c, outcomes.filter((o) => o.question.cat === c))), row('answerable', outcomes.filter((o) => o.question.docs.length)), row('all', outcomes)];
}

/** Precision and recall of a predicate for "this question has an answer in the documents". */
export function answerablePR(outcomes: Outcome[], says: (o: Outcome) => boolean) {
  const tp = outcomes.filter((o) => says(o) && o.question.docs.length).length;
  const fp = outcomes.filter((o) => says(o) && !o.question.docs.length).length;
  const fn = outcomes.filter((o) => !says(o) && o.question.docs.length).length;
  return { precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1, tp, fp, fn };
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string) => args.find((a) => a.startsWith(`--${name}`))?.split('=')[1];
  const modes = (arg('modes') ?? 'lexical,vector,hybrid').split(',') as SearchMode[];
  const showMisses = args.includes('--misses');
  const embedder = arg('embedder') ?? 'embedded';
  const server = await startTestServer({ env: { EMBEDDED_EMBEDDINGS: String(embedder === 'embedded') } });
  const openai = await startFakeOpenAI();
  try {
    const owner = await setupOwner(server);
    const ws = owner.workspaceId;
    const svc = knowledge(server.app);
    // Lexical first, as an install that chose no embeddings (else the embedded model is the default).
    await server.request('PUT', '/api/v1/knowledge/settings', { headers: owner.headers, body: { embedding: null } });
    const docOf = new Map<string, string>();
    const dir = join(setDir, 'corpus');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
      const s = await svc.upload(ws, readFileSync(join(dir, file)), 'text/markdown', file);
      docOf.set(s._id, file);
    }
    await svc.runner.idle();
    // --half=even|odd: the questions of even or odd index only (tune on one half, check on the other).
    const half = arg('half');
    const qs = questions().filter((_, i) => !half || (half === 'even') === (i % 2 === 0));
    console.log(`\nknowledge evaluation ${SET ?? 'knowledge-eval'}: ${docOf.size} documents (${SET ? 'see its README' : 'undici docs, MIT'}), ${qs.length} questions`);
    // Lexical first, with no embedding connection (as a fresh install); then a connection and a reindex.
    let connected = false;
    for (const mode of [...modes].sort((a, b) => Number(a !== 'lexical') - Number(b !== 'lexical'))) {
      if (mode !== 'lexical' && !connected) {
        const t = performance.now();
        const chosen = embedder === 'fake' ? { connectionId: await addProviderConnection(server.app, ws, openai.baseUrl, openai.apiKey) } : { connectionId: 'embedded' };
        const put = await server.request('PUT', '/api/v1/knowledge/settings', { headers: owner.headers, body: { embedding: chosen, reindex: true } });
        if (put.status !== 200) throw new Error(`settings answered ${put.status}: ${JSON.stringify(put.body)}`);
        await svc.runner.idle();
        const chunks = await server.app.store.collection('knowledge_chunks').count({ workspaceId: ws });
        const s = (performance.now() - t) / 1000;
        console.log(`\nreindexed with the ${embedder} embedder: ${chunks} chunks in ${s.toFixed(1)} s (${(chunks / s).toFixed(1)} chunks/s incl. parsing)`);
        connected = true;
      }
      const outcomes: Outcome[] = [];
      const times: number[] = [];
      for (const question of qs) {
        const t = performance.now();
        let found: { mode: string; relevant: boolean; results: Array<{ sourceId: string; score: number }> };
        if (mode === 'vector') found = await svc.search(ws, question.q, { topK: 10, mode });
        else {
          const r = await server.request('POST', '/api/v1/knowledge/search', { headers: owner.headers, body: { query: question.q, topK: 10 } });
          if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(r.body)}`);
          found = r.body;
        }
        if (found.mode !== mode) throw new Error(`asked for ${mode}, the search answered ${found.mode}`);
        times.push(performance.now() - t);
        const docs = found.results.map((x) => docOf.get(x.sourceId) ?? '?');
        const rank = docs.findIndex((d) => question.docs.includes(d));
        outcomes.push({ question, rank, relevant: found.relevant, topScore: Math.max(0, ...found.results.slice(0, 3).map((x) => x.score)), topDocs: docs.slice(0, 3) });
      }
      printMode(mode, outcomes, times, showMisses, embedder);
      // --dump=FILE: both candidate lists of every question (all 74, whatever --half), for bench/knowledge-fusion.ts;
      // with --modes=lexical the lexical lists alone (the vector lists are empty).
      const dump = arg('dump');
      if (dump && (mode === 'hybrid' || (mode === 'lexical' && !modes.includes('hybrid')))) {
        const chunks = await server.app.store.collection<{ _id: string; workspaceId: string; sourceId: string }>('knowledge_chunks').find({ workspaceId: ws });
        const rows = [];
        for (const question of questions()) {
          let lists: unknown;
          await svc.search(ws, question.q, { topK: 10, mode: 'hybrid', trace: (l) => { lists = l; } });
          rows.push({ ...question, ...(lists as object) });
        }
        writeFileSync(dump, JSON.stringify({ documentOf: Object.fromEntries(chunks.map((c) => [c._id, docOf.get(c.sourceId)])), questions: rows }));
        console.log(`  candidate lists written to ${dump}`);
      }
    }
  } finally {
    await server.stop();
    await openai.close();
  }
}

function printMode(mode: string, outcomes: Outcome[], times: number[], showMisses: boolean, embedderName: string) {
  const f2 = (x: number) => (Number.isNaN(x) ? '   - ' : x.toFixed(3));
  console.log(`\n${mode}${mode === 'lexical' ? '' : ` (${embedderName} embeddings)`}   search p50 ${pct(times, 50).toFixed(1)} ms\n  category       n  recall@5  MRR@10  relevant right`);
  for (const r of figures(outcomes)) console.log(`  ${r.cat.padEnd(13)} ${String(r.n).padStart(2)}    ${f2(r.recallAt5)}   ${f2(r.mrr)}   ${f2(r.relevantShare)}`);
  const pr = answerablePR(outcomes, (o) => o.relevant);
  console.log(`  relevant flag for "answerable": precision ${pr.precision.toFixed(3)} recall ${pr.recall.toFixed(3)} (tp ${pr.tp}, fp ${pr.fp}, fn ${pr.fn})`);
  const sweep = [0.3, 0.4, 0.5, 0.52, 0.54, 0.56, 0.58, 0.6, 0.7].map((t) => { const p = answerablePR(outcomes, (o) => o.topScore >= t); return `${t}: P ${p.precision.toFixed(2)} R ${p.recall.toFixed(2)} unans. ${outcomes.filter((o) => !o.question.docs.length).length - p.fp}`; });
  console.log(`  best of top 3 scores >= t (precision, recall for "answerable", unanswerable recognised):\n    ${sweep.join(' | ')}`);
  if (process.env.EVAL_SCORES) for (const o of [...outcomes].sort((a, b) => a.topScore - b.topScore)) console.log(`    ${o.topScore.toFixed(3)} ${o.question.docs.length ? 'A' : 'U'} rank ${o.rank} ${o.question.q}`);
  if (showMisses) {
    for (const o of outcomes) {
      const wrong = o.question.docs.length ? o.rank < 0 || o.rank >= 5 || !o.relevant : o.relevant;
      if (wrong) console.log(`    [${o.question.cat}] rank ${o.rank} rel ${o.relevant} score ${o.topScore.toFixed(3)}  ${o.question.q}  -> ${o.topDocs.join(', ')}`);
    }
  }
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0; };

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('knowledge-eval.ts')) await main();
