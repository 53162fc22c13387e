import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { noiseEmbedder, weakEmbedder } from '../fakes/embedders.js';
import { assertFloors, cachedModel, measure } from './hybrid-eval.js';

/**
 * Issue 39 on the fifth set (17 package READMEs), written after the first-ranks changes were chosen and measured once
 * (held out), recall@5 / MRR@10 in bench/knowledge-eval.ts: lexical 0.944 / 0.803, model 1.000 / 0.819, weak 1.000
 * / 0.778, fake 1.000 / 0.802; here a model with no signal: 0.972 / 0.809. The built-in model's vectors served by a
 * provider rank at least as well as words alone, and so does noise. The weak model does not: it brings two German
 * questions into the top five (recall 0.944 -> 1.000) but moves three English answers from first to second place
 * (MRR@10 0.803 -> 0.778); the hashed words of test/fakes lose one first place (0.802). These are the shortfalls of
 * "hybrid >= lexical" measured on a held-out set (docs/knowledge.md): the weak model's floor holds it where it is.
 */
test('package READMEs: hybrid with the model never under words alone; the weak model finds more, ranks a little lower', async () => {
  const model = cachedModel('knowledge-eval-5');
  const f = await measure('knowledge-eval-5', { model, weak: weakEmbedder, noise: noiseEmbedder });
  assert.is(model.misses(), 0, 'every passage and question has a cached vector (run bench/knowledge-eval.ts to refresh the cache after a chunking change)');
  assertFloors(f, { lexical: { recall: 0.92, mrr: 0.79 }, model: { recall: 0.97, mrr: 0.80 }, noise: { recall: 0.92, mrr: 0.79 } });
  assert.ok(f.weak.recall >= f.lexical.recall, `weak recall@5 ${f.weak.recall} under lexical ${f.lexical.recall}`);
  assert.ok(f.weak.mrr >= 0.76, `weak MRR@10 ${f.weak.mrr}`);
});

test.run();
