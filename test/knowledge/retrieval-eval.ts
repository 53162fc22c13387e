import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../../src/app/context.js';
import { knowledge } from '../../src/knowledge/service.js';
import type { SearchMode } from '../../src/knowledge/search.js';

/**
 * Retrieval evaluation over a real document set: README files of MIT-licensed npm packages
 * (test/fixtures/knowledge/corpus, see LICENSES.md there) with labelled questions whose answer
 * document was checked by hand. recall@5: the answer document is among the top 5 excerpts;
 * MRR: mean of 1/rank of its first excerpt within the top 10 (0 when absent).
 */
export const FIXTURES = new URL('../fixtures/knowledge/', import.meta.url).pathname;

export interface EvalFigures { mode: SearchMode; recallAt5: number; mrr: number; questions: number }

export async function ingestCorpus(app: AppContext, workspaceId: string): Promise<Map<string, string>> {
  const svc = knowledge(app);
  const sourceOf = new Map<string, string>();
  const dir = join(FIXTURES, 'corpus');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'LICENSES.md').sort()) {
    const s = await svc.upload(workspaceId, readFileSync(join(dir, file)), 'text/markdown', file);
    sourceOf.set(s._id, file);
  }
  await svc.runner.idle();
  return sourceOf;
}

export async function evaluate(app: AppContext, workspaceId: string, sourceOf: Map<string, string>, mode: SearchMode): Promise<EvalFigures> {
  const questions = JSON.parse(readFileSync(join(FIXTURES, 'questions.json'), 'utf8')) as Array<{ q: string; doc: string }>;
  let hits = 0;
  let rr = 0;
  for (const { q, doc } of questions) {
    const { results } = await knowledge(app).search(workspaceId, q, { topK: 10, mode });
    const rank = results.findIndex((r) => sourceOf.get(r.sourceId) === doc);
    if (rank >= 0 && rank < 5) hits++;
    if (rank >= 0) rr += 1 / (rank + 1);
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { mode, recallAt5: round(hits / questions.length), mrr: round(rr / questions.length), questions: questions.length };
}
