import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { knowledge } from '../../src/knowledge/service.js';
import { setupOwner } from '../helpers/auth.js';
import { startTestServer } from '../helpers/server.js';

/**
 * A floor under the visitor-question evaluation (bench/knowledge-eval.ts prints the full figures): undici's
 * documentation and 74 questions in visitors' words, with typos, in German, French and Spanish, and without
 * an answer. Lexical only, as a fresh install without an embedding connection. Measured when the floors
 * were last raised (issue 24, fourth pass): recall@5 0.859, MRR@10 0.705, answerable marked relevant 59/64,
 * unanswerable recognised 7/10.
 */
const DIR = new URL('../fixtures/knowledge-eval/', import.meta.url).pathname;

test('lexical search finds the page for visitors\' questions and tells most answerable ones from gaps', async () => {
  const server = await startTestServer();
  try {
    const owner = await setupOwner(server);
    const svc = knowledge(server.app);
    const docOf = new Map<string, string>();
    for (const file of readdirSync(join(DIR, 'corpus')).sort()) {
      const s = await svc.upload(owner.workspaceId, readFileSync(join(DIR, 'corpus', file)), 'text/markdown', file);
      docOf.set(s._id, file);
    }
    await svc.runner.idle();
    const questions = JSON.parse(readFileSync(join(DIR, 'questions.json'), 'utf8')) as Array<{ q: string; docs: string[] }>;
    let found5 = 0, rr = 0, answerableRelevant = 0, gapsRecognised = 0;
    const answerable = questions.filter((x) => x.docs.length).length;
    for (const { q, docs } of questions) {
      const r = await server.request('POST', '/api/v1/knowledge/search', { headers: owner.headers, body: { query: q, topK: 10 } });
      assert.is(r.status, 200);
      assert.is(r.body.mode, 'lexical');
      const rank = (r.body.results as Array<{ sourceId: string }>).findIndex((x) => docs.includes(docOf.get(x.sourceId) ?? ''));
      if (docs.length) {
        if (rank >= 0 && rank < 5) found5++;
        if (rank >= 0) rr += 1 / (rank + 1);
        if (r.body.relevant) answerableRelevant++;
      } else if (!r.body.relevant) gapsRecognised++;
    }
    const recall = found5 / answerable, mrr = rr / answerable;
    console.log(`\n  visitor questions (lexical): recall@5 ${recall.toFixed(3)}  MRR@10 ${mrr.toFixed(3)}  answerable relevant ${answerableRelevant}/${answerable}  unanswerable recognised ${gapsRecognised}/${questions.length - answerable}\n`);
    assert.ok(recall >= 0.85, `recall@5 ${recall}`);
    assert.ok(mrr >= 0.7, `MRR@10 ${mrr}`);
    assert.ok(answerableRelevant >= 0.9 * answerable, `answerable marked relevant ${answerableRelevant}/${answerable}`);
    assert.ok(gapsRecognised >= 7, `unanswerable recognised ${gapsRecognised}`);
  } finally {
    await server.stop();
  }
});

test.run();
