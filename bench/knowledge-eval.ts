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
import { builtInModelEmbedder, weakEmbedder } from '../test/fakes/embedders.js';
import { startFakeOpenAI, type FakeOpenAI } from '../test/fakes/openai.js';
import { setupOwner } from '../test/helpers/auth.js';
import { startTestServer } from '../test/helpers/server.js';
import { addProviderConnection } from '../test/knowledge/helpers.js';

export const EVAL_DIR = new URL('../test/fixtures/knowledge-eval/', import.meta.url).pathname;
/** The evaluation sets: the README set, undici (tuned on), pino + piscina, fastify, playwright-core, package READMEs (held out), more package READMEs (held out). */
export const SETS = ['knowledge', 'knowledge-eval', 'knowledge-eval-2', 'knowledge-eval-3', 'knowledge-eval-4', 'knowledge-eval-5', 'knowledge-eval-6'];
// --set=knowledge-eval-2 (one set), --set=all, or a comma list; default knowledge-eval (undici).
const SET = process.argv.find((a) => a.startsWith('--set='))?.split('=')[1];
const setDir = (set: string) => new URL(`../test/fixtures/${set}/`, import.meta.url).pathname;
export interface Question { cat: string; q: string; docs: string[] }
export interface Outcome { question: Question; rank: number; relevant: boolean; topScore: number; topDocs: string[] }
export interface CategoryFigures { cat: string; n: number; recallAt5: number; mrr: number; relevantShare: number }

/** A set's questions; the README set's `{ q, doc }` read as `{ cat: 'readme', q, docs: [doc] }`. */
export const questions = (set = SET && !SET.includes(',') && SET !== 'all' ? SET : 'knowledge-eval'): Question[] =>
  (JSON.parse(readFileSync(join(setDir(set), 'questions.json'), 'utf8')) as Array<Question & { doc?: string }>)
    .map((x) => (x.doc ? { cat: 'readme', q: x.q, docs: [x.doc] } : x));
/** A set's corpus files (the README set keeps its licences beside them). */
export const corpusFiles = (set: string) => readdirSync(join(setDir(set), 'corpus')).filter((f) => f.endsWith('.md') && f !== 'LICENSES.md').sort();

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

/**
 * Embedders: `embedded` the built-in model chosen in the knowledge settings (run by the server's workers);
 * `model` the same model's vectors served by a fake OpenAI-compatible provider (cached beside the set,
 * test/fakes/embedders.ts); `weak` random projections of word counts served the same way; `fake` the hashed
 * bag of words of test/fakes/embeddings.ts.
 */
export type EmbedderName = 'embedded' | 'model' | 'weak' | 'fake';
export const vectorCacheFile = (set: string) => join(setDir(set), 'vectors-builtin-model.bin');

interface SetRun { set: string; rows: Array<{ mode: SearchMode; embedder: string; outcomes: Outcome[]; p50: number }> }

async function runSet(set: string, modes: SearchMode[], embedders: EmbedderName[], opts: { showMisses: boolean; half?: string; dump?: string; quiet: boolean }): Promise<SetRun> {
  const server = await startTestServer({ env: { EMBEDDED_EMBEDDINGS: String(embedders.includes('embedded')) } });
  const model = builtInModelEmbedder(vectorCacheFile(set));
  const fakes: Record<string, FakeOpenAI> = {
    model: await startFakeOpenAI({ embed: model }),
    weak: await startFakeOpenAI({ embed: weakEmbedder }),
    fake: await startFakeOpenAI(),
  };
  const run: SetRun = { set, rows: [] };
  try {
    const owner = await setupOwner(server);
    const ws = owner.workspaceId;
    const svc = knowledge(server.app);
    // Lexical first, as an install that chose no embeddings (else the embedded model is the default).
    await server.request('PUT', '/api/v1/knowledge/settings', { headers: owner.headers, body: { embedding: null } });
    const docOf = new Map<string, string>();
    const dir = join(setDir(set), 'corpus');
    for (const file of corpusFiles(set)) {
      const s = await svc.upload(ws, readFileSync(join(dir, file)), 'text/markdown', file);
      docOf.set(s._id, file);
    }
    await svc.runner.idle();
    // --half=even|odd: the questions of even or odd index only (tune on one half, check on the other).
    const qs = questions(set).filter((_, i) => !opts.half || (opts.half === 'even') === (i % 2 === 0));
    console.log(`\nknowledge evaluation ${set}: ${docOf.size} documents (see its README), ${qs.length} questions`);
    const ask = async (mode: SearchMode, embedderName: string) => {
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
      if (!opts.quiet) printMode(mode, outcomes, times, opts.showMisses, embedderName);
      run.rows.push({ mode, embedder: mode === 'lexical' ? '-' : embedderName, outcomes, p50: pct(times, 50) });
    };
    const dumpLists = async (file: string) => {
      const chunks = await server.app.store.collection<{ _id: string; workspaceId: string; sourceId: string }>('knowledge_chunks').find({ workspaceId: ws });
      const rows = [];
      for (const question of questions(set)) {
        let lists: unknown;
        await svc.search(ws, question.q, { topK: 10, mode: 'hybrid', trace: (l) => { lists = l; } });
        rows.push({ ...question, ...(lists as object) });
      }
      writeFileSync(file, JSON.stringify({ documentOf: Object.fromEntries(chunks.map((c) => [c._id, docOf.get(c.sourceId)])), questions: rows }));
      console.log(`  candidate lists written to ${file}`);
    };
    if (modes.includes('lexical')) await ask('lexical', '-');
    // --dump=FILE: both candidate lists of every question (whatever --half), for bench/knowledge-fusion.ts; with
    // --modes=lexical the lexical lists alone (the vector lists are empty). One file per set and embedder.
    const dumpName = (e: string) => opts.dump!.replace(/(\.json)?$/, `-${set}-${e}.json`);
    if (opts.dump && !modes.some((m) => m !== 'lexical')) await dumpLists(dumpName('lexical'));
    for (const embedder of modes.some((m) => m !== 'lexical') ? embedders : []) {
      const t = performance.now();
      const chosen = embedder === 'embedded' ? { connectionId: 'embedded' } : { connectionId: await addProviderConnection(server.app, ws, fakes[embedder].baseUrl, fakes[embedder].apiKey) };
      const put = await server.request('PUT', '/api/v1/knowledge/settings', { headers: owner.headers, body: { embedding: chosen, reindex: true } });
      if (put.status !== 200) throw new Error(`settings answered ${put.status}: ${JSON.stringify(put.body)}`);
      await svc.runner.idle();
      const chunks = await server.app.store.collection('knowledge_chunks').count({ workspaceId: ws });
      const s = (performance.now() - t) / 1000;
      if (!opts.quiet) console.log(`\nreindexed with the ${embedder} embedder: ${chunks} chunks in ${s.toFixed(1)} s (${(chunks / s).toFixed(1)} chunks/s incl. parsing)`);
      for (const mode of modes.filter((m) => m !== 'lexical')) await ask(mode, embedder);
      if (opts.dump) await dumpLists(dumpName(embedder));
    }
  } finally {
    model.save();
    await server.stop();
    for (const f of Object.values(fakes)) await f.close();
  }
  return run;
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string) => args.find((a) => a.startsWith(`--${name}`))?.split('=')[1];
  const modes = (arg('modes') ?? 'lexical,vector,hybrid').split(',') as SearchMode[];
  const embedders = (arg('embedder') ?? 'embedded').split(',') as EmbedderName[];
  const sets = !SET ? ['knowledge-eval'] : SET === 'all' ? SETS : SET.split(',');
  const quiet = sets.length > 1 && !args.includes('--verbose');
  const runs: SetRun[] = [];
  for (const set of sets) runs.push(await runSet(set, modes, embedders, { showMisses: args.includes('--misses'), half: arg('half'), dump: arg('dump'), quiet }));
  // The summary: answerable questions of every set, recall@5 / MRR@10, answerable relevant, unanswerable recognised.
  console.log('\nset | mode | embedder | recall@5 | MRR@10 | answerable relevant | unanswerable recognised | p50 ms');
  for (const r of runs) for (const row of r.rows) {
    const a = figures(row.outcomes).find((f) => f.cat === 'answerable')!;
    const pr = answerablePR(row.outcomes, (o) => o.relevant);
    const unans = row.outcomes.filter((o) => !o.question.docs.length);
    console.log(`${r.set} | ${row.mode} | ${row.embedder} | ${a.recallAt5.toFixed(3)} | ${a.mrr.toFixed(3)} | ${pr.tp}/${pr.tp + pr.fn} | ${unans.filter((o) => !o.relevant).length}/${unans.length} | ${row.p50.toFixed(1)}`);
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
