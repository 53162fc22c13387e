import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeOpenAI } from '../fakes/openai.js';
import { startTestServer } from '../helpers/server.js';
import { addProviderConnection } from './helpers.js';
import { evaluate, ingestCorpus } from './retrieval-eval.js';

test('retrieval evaluation: recall@5 and MRR for lexical, vector (FAKE embeddings) and hybrid', async () => {
  const server = await startTestServer();
  const openai = await startFakeOpenAI();
  try {
    const ws = 'ws_eval';
    await addProviderConnection(server.app, ws, openai.baseUrl, openai.apiKey);
    const sources = await ingestCorpus(server.app, ws);
    const lexical = await evaluate(server.app, ws, sources, 'lexical');
    const vector = await evaluate(server.app, ws, sources, 'vector');
    const hybrid = await evaluate(server.app, ws, sources, 'hybrid');
    console.log(`\n  retrieval evaluation: ${sources.size} documents (MIT package READMEs), ${lexical.questions} labelled questions`);
    console.log(`  lexical (BM25, FTS5)            recall@5 ${lexical.recallAt5.toFixed(3)}  MRR ${lexical.mrr.toFixed(3)}`);
    console.log(`  vector  (FAKE hashed bag-of-words embeddings, not a real model)  recall@5 ${vector.recallAt5.toFixed(3)}  MRR ${vector.mrr.toFixed(3)}`);
    console.log(`  hybrid  (RRF of both)           recall@5 ${hybrid.recallAt5.toFixed(3)}  MRR ${hybrid.mrr.toFixed(3)}\n`);
    assert.ok(lexical.recallAt5 >= 0.8, `lexical recall@5 ${lexical.recallAt5}`);
    assert.ok(lexical.mrr >= 0.7, `lexical MRR ${lexical.mrr}`);
    assert.ok(vector.recallAt5 >= 0.3, `fake-vector recall@5 ${vector.recallAt5}`);
    assert.ok(hybrid.recallAt5 >= 0.8, `hybrid recall@5 ${hybrid.recallAt5}`);
  } finally {
    await server.stop();
    await openai.close();
  }
});

test.run();
