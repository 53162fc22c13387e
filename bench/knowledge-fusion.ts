/**
 * Tunes the fusion of the lexical and vector lists offline, with the server's own code (src/knowledge/fusion.ts),
 * on the candidate lists bench/knowledge-eval.ts recorded (--dump=FILE, made with the embedded model):
 *
 *   npx tsx bench/knowledge-eval.ts --modes=hybrid --dump=/tmp/lists.json
 *   npx tsx bench/knowledge-fusion.ts /tmp/lists.json [--tune=even|odd] [--top=15] [--goal=gaps] [--table]
 *
 * Sweeps the fusion parameters, ranks them on the tuning half (MRR@10, then recall@5, then answerable and
 * unanswerable judged right) and prints the best ones with the held-out half and all questions beside them,
 * then the current LOCAL_FUSION the same way.
 */
import { readFileSync } from 'node:fs';
import type { SimilarityCalibration } from '../src/knowledge/calibration.js';
import { CALIBRATED, diversify, fuse, LOCAL_FUSION, PROVIDER_FUSION, RELEVANT_MIN, type CalibratedWeighting, type FusionParams, type LexicalCandidate, type VectorCandidate } from '../src/knowledge/fusion.js';
import { answerablePR, figures, type Outcome, type Question } from './knowledge-eval.js';

interface Row extends Question { lexical: LexicalCandidate[]; vector: VectorCandidate[]; calibration?: SimilarityCalibration | null }
interface Dump { documentOf: Record<string, string>; questions: Row[] }

export function outcomesOf(dump: Dump, p: FusionParams, which: (i: number) => boolean, weighting: CalibratedWeighting = CALIBRATED): Outcome[] {
  return dump.questions.filter((_, i) => which(i)).map((row) => {
    const fused = fuse(row.lexical, row.vector, p, row.q, { calibration: row.calibration, documentOf: (id) => dump.documentOf[id], weighting });
    const ids = diversify(fused.order.slice(0, 40), (id) => dump.documentOf[id]).slice(0, 10);
    const docs = ids.map((id) => dump.documentOf[id]);
    const rank = docs.findIndex((d) => row.docs.includes(d));
    return { question: row, rank, relevant: ids.length > 0 && fused.best >= RELEVANT_MIN, topScore: fused.best, topDocs: docs.slice(0, 3) };
  });
}

export function summary(os: Outcome[]) {
  const all = figures(os).find((f) => f.cat === 'answerable')!;
  const pr = answerablePR(os, (o) => o.relevant);
  const unans = os.filter((o) => !o.question.docs.length);
  return { r5: all.recallAt5, mrr: all.mrr, tp: pr.tp, answerable: pr.tp + pr.fn, unansRight: unans.filter((o) => !o.relevant).length, unans: unans.length, precision: pr.precision };
}

const fmt = (s: ReturnType<typeof summary>) => `R@5 ${s.r5.toFixed(3)} MRR ${s.mrr.toFixed(3)} ans ${s.tp}/${s.answerable} unans ${s.unansRight}/${s.unans}`;

/** --table: per category, lexical / vector / hybrid with LOCAL_FUSION, on all questions and on each half. */
function table(dump: Dump) {
  const only = (side: 'lexical' | 'vector'): Dump => ({ ...dump, questions: dump.questions.map((q) => ({ ...q, [side === 'lexical' ? 'vector' : 'lexical']: [] })) });
  const f2 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(3));
  for (const [name, which] of [['all', () => true], ['even', (i: number) => i % 2 === 0], ['odd', (i: number) => i % 2 === 1]] as const) {
    console.log(`\n${name}: category n | lexical R@5 MRR right | vector R@5 MRR right | hybrid R@5 MRR right`);
    const rows = [only('lexical'), only('vector'), dump].map((d) => figures(outcomesOf(d, LOCAL_FUSION, which)));
    for (const [i, r] of rows[0].entries()) console.log(`  ${r.cat} ${r.n} | ${rows.map((m) => `${f2(m[i].recallAt5)} ${f2(m[i].mrr)} ${f2(m[i].relevantShare)}`).join(' | ')}`);
    const prs = [only('lexical'), only('vector'), dump].map((d) => answerablePR(outcomesOf(d, LOCAL_FUSION, which), (o) => o.relevant));
    console.log(`  relevant for "answerable" (precision / recall): ${prs.map((p) => `${p.precision.toFixed(3)} / ${p.recall.toFixed(3)}`).join(' | ')}`);
  }
}

/**
 * --sweep: the calibrated weighting (CalibratedWeighting) over several dumps at once, each named NAME=FILE[:builtin]
 * (`:builtin` replays the list with LOCAL_FUSION, as the server does for the built-in model; else PROVIDER_FUSION).
 * Ranks the settings by the worst gain of hybrid over lexical (recall@5 and MRR@10) over the dumps, then the
 * mean MRR gain; prints the best with every dump's figures, then CALIBRATED.
 */
function sweep(specs: string[], top: number, near: boolean) {
  const dumps = specs.map((spec) => {
    const [name, rest] = spec.split('=');
    const [file, as] = rest.split(':');
    return { name: `${name}${as ? ':' + as : ''}`, dump: JSON.parse(readFileSync(file, 'utf8')) as Dump, p: as === 'builtin' ? LOCAL_FUSION : PROVIDER_FUSION };
  });
  const lexical = dumps.map((d) => summary(outcomesOf({ ...d.dump, questions: d.dump.questions.map((q) => ({ ...q, vector: [] })) }, d.p, () => true)));
  const grid: CalibratedWeighting[] = [];
  // --near: CALIBRATED's neighbourhood only (96 settings; the full grid takes minutes on a loaded machine).
  for (const zMin of near ? [0, 0.5, 1] : [0, 0.5, 1, 1.5, 2, 3])
    for (const span of near ? [2, 4] : [0.5, 1, 2, 4])
      for (const agreeFloor of near ? [0, 0.5] : [0, 0.25, 0.5, 1])
        for (const weight of near ? [0.25, 0.5] : [0.25, 0.5, 1, 2])
          for (const agreeTop of [3, 5])
            for (const guardFirst of [false, true]) grid.push({ zMin, zFull: zMin + span, agreeFloor, weight, agreeTop, guardFirst });
  const rate = (w: CalibratedWeighting) => {
    const h = dumps.map((d) => summary(outcomesOf(d.dump, d.p, () => true, w)));
    const gains = h.map((x, i) => ({ r5: x.r5 - lexical[i].r5, mrr: x.mrr - lexical[i].mrr }));
    const worst = Math.min(...gains.map((g) => Math.min(g.r5, g.mrr)));
    const mean = gains.reduce((a, g) => a + g.mrr + 0.5 * g.r5, 0) / gains.length;
    return { w, h, worst, mean };
  };
  const rated = grid.map(rate).sort((a, b) => (b.worst >= -1e-9 ? 1 : 0) - (a.worst >= -1e-9 ? 1 : 0) || b.mean - a.mean || b.worst - a.worst);
  const show = (r: ReturnType<typeof rate>) => `${JSON.stringify(r.w)} worst ${r.worst.toFixed(3)} mean ${r.mean.toFixed(4)}\n${r.h.map((x, i) => `   ${dumps[i].name.padEnd(28)} lexical R@5 ${lexical[i].r5.toFixed(3)} MRR ${lexical[i].mrr.toFixed(3)} | hybrid R@5 ${x.r5.toFixed(3)} MRR ${x.mrr.toFixed(3)} ans ${x.tp}/${x.answerable} unans ${x.unansRight}/${x.unans}`).join('\n')}`;
  for (const r of rated.slice(0, top)) console.log(show(r));
  console.log(`CALIBRATED\n${show(rate(CALIBRATED))}`);
}

function main() {
  const args = process.argv.slice(2);
  if (args.includes('--sweep')) return sweep(args.filter((a) => a.includes('=') && !a.startsWith('--')), Number(args.find((a) => a.startsWith('--top='))?.split('=')[1] ?? 8), args.includes('--near'));
  const dump: Dump = JSON.parse(readFileSync(args[0], 'utf8'));
  if (args.includes('--table')) return table(dump);
  const tune = args.find((a) => a.startsWith('--tune='))?.split('=')[1] ?? 'even';
  const top = Number(args.find((a) => a.startsWith('--top='))?.split('=')[1] ?? 15);
  const isTune = (i: number) => (tune === 'even') === (i % 2 === 0);
  const grid: FusionParams[] = [];
  for (const rrfK of [20, 60])
    for (const trustFloor of [0.1, 0.2, 0.4])
      for (const vectorWeight of [0.25, 0.4, 0.6, 1])
        for (const englishOnly of [true, false])
          for (const min of [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65])
            grid.push({ rrfK, trustFloor, vectorWeight, englishOnly, similarity: { min } });
  const scored = grid.map((p) => ({ p, t: summary(outcomesOf(dump, p, isTune)) }));
  // Rank order on the tuning half: MRR first (the target not met), recall next, then the gap verdicts; with
  // --goal=gaps: unanswerable questions recognised while at least 90% of answerable ones stay relevant.
  const gaps = args.includes('--goal=gaps');
  const key = (s: ReturnType<typeof summary>) => gaps
    ? (s.tp / s.answerable >= 0.9 ? 10 : 0) + s.unansRight / s.unans + s.mrr * 0.1
    : s.mrr + s.r5 * 0.5 + (s.tp / s.answerable) * 0.3 + (s.unansRight / s.unans) * 0.2;
  scored.sort((a, b) => key(b.t) - key(a.t));
  console.log(`tuned on the ${tune} half (${grid.length} settings); held out: the other half`);
  for (const { p, t } of scored.slice(0, top)) {
    const held = summary(outcomesOf(dump, p, (i) => !isTune(i)));
    const all = summary(outcomesOf(dump, p, () => true));
    console.log(`${JSON.stringify(p)}\n   tune ${fmt(t)} | held out ${fmt(held)} | all ${fmt(all)}`);
  }
  const cur = (w: (i: number) => boolean) => fmt(summary(outcomesOf(dump, LOCAL_FUSION, w)));
  console.log(`LOCAL_FUSION ${JSON.stringify(LOCAL_FUSION)}\n   tune ${cur(isTune)} | held out ${cur((i) => !isTune(i))} | all ${cur(() => true)}`);
}

if (process.argv[1]?.endsWith('knowledge-fusion.ts')) main();
