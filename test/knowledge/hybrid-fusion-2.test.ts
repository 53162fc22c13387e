import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { weakEmbedder } from '../fakes/embedders.js';
import { assertFloors, cachedModel, measure } from './hybrid-eval.js';

/**
 * Issue 39 on the pino and piscina set (held out): hybrid with the built-in model's vectors or a weak model served by
 * a provider ranks at least as well as words alone. Measured when written, recall@5 / MRR@10: lexical 1.000 /
 * 0.701, model 1.000 / 0.718, weak 1.000 / 0.724. After the first-ranks pass (headings, neighbours; signal points
 * 0-4): lexical 1.000 / 0.730, model 1.000 / 0.742, weak 1.000 / 0.760 in bench/knowledge-eval.ts.
 */
test('pino and piscina docs: hybrid never under words alone', async () => {
  const model = cachedModel('knowledge-eval-2');
  const f = await measure('knowledge-eval-2', { model, weak: weakEmbedder });
  assert.is(model.misses(), 0, 'every passage and question has a cached vector');
  assertFloors(f, { lexical: { recall: 0.95, mrr: 0.72 }, model: { recall: 0.95, mrr: 0.72 }, weak: { recall: 0.95, mrr: 0.73 } });
});

test.run();
