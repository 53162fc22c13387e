import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedLexical } from '../../src/store/lexical-embedded.js';
import { bestCorrection, correctionPrefixes, editDistance } from '../../src/store/lexical-terms.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ingestionIdle } from './helpers.js';

const entry = (id: string, text: string, title = 'Garden') => ({ id, workspaceId: 'ws_1', sourceId: 'ks_1', documentId: `kdoc_${id}`, title, text });

test('a misspelt word is searched as the closest word of the index', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([entry('a', 'Water the tomatoes early in the morning.'), entry('b', 'Compost heaps need turning every week.')]);
  assert.equal((await lex.search('ws_1', ['tomatos'], { limit: 5 })).map((h) => h.id), ['a']);
  assert.equal((await lex.search('ws_1', ['compsot', 'heasp'], { limit: 5 })).map((h) => h.id), ['b']);
  assert.equal(await lex.search('ws_1', ['xylophone'], { limit: 5 }), [], 'a word far from every indexed word finds nothing');
  await lex.close();
});

test('coverage weighs each question word by its rarity and counts every word of the question', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([
    entry('a', 'Roses need pruning in spring.'), entry('b', 'Tomatoes need sun.'), entry('c', 'Beans need water.'),
    entry('d', 'Lettuce needs shade.'), entry('e', 'Roses and tomatoes both need pruning.'),
  ]);
  const hits = await lex.search('ws_1', ['roses', 'pruning', 'need'], { limit: 5 });
  const cov = Object.fromEntries(hits.map((h) => [h.id, h.coverage]));
  assert.is(cov.a, 1, 'every word present');
  assert.ok(cov.b > 0 && cov.b < 0.3, `only the common word: ${cov.b}`);
  const unknown = await lex.search('ws_1', ['roses', 'pruning', 'helicopter'], { limit: 5 });
  assert.ok(unknown[0].coverage < 0.7, `a word the documents never use lowers coverage: ${unknown[0].coverage}`);
  await lex.close();
});

test('edit distance counts a swap of neighbours as one and stops past its limit', () => {
  assert.is(editDistance('pnig', 'ping', 1), 1);
  assert.is(editDistance('requst', 'request', 2), 1);
  assert.is(editDistance('abc', 'xyzuvw', 2), 3);
  const vocabulary = [{ term: 'proxi', doc: 5 }, { term: 'proxy', doc: 2 }, { term: 'socket', doc: 3 }];
  assert.equal(bestCorrection('sockte', vocabulary), { term: 'socket', df: 3 });
  assert.equal(bestCorrection('proxu', vocabulary), { term: 'proxi', df: 5 }, 'the most frequent of the closest words');
  assert.is(bestCorrection('ab', vocabulary), null, 'short words are not corrected');
  assert.equal(correctionPrefixes('pnig'), ['pn', 'pi'], 'a wrong second letter is looked up too');
});

let server: TestServer;
let owner: TestSession;

test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  const add = async (name: string, text: string) => {
    const r = await server.request('POST', '/api/v1/knowledge', { headers: owner.headers, body: { kind: 'text', name, text } });
    await ingestionIdle(server.app, r.body.id);
  };
  // One long page about watering, with many sections, and a short one about frost.
  await add('Watering guide', ['# Watering guide', ...Array.from({ length: 8 }, (_, i) => `## Bed ${i + 1}\n\nWater bed ${i + 1} deeply in the morning; tomatoes and beans in bed ${i + 1} need water twice a week in summer.`)].join('\n\n'));
  await add('Frost', '# Frost\n\nCover tender plants with fleece when frost is forecast; tomatoes and beans do not survive frost.');
});
test.after(() => server.stop());

const search = async (query: string, topK = 5) => {
  const r = await server.request('POST', '/api/v1/knowledge/search', { headers: owner.headers, body: { query, topK } });
  assert.is(r.status, 200);
  return r.body as { relevant: boolean; results: Array<{ title: string; score: number }> };
};

test('a search answers scores from 0 to 1 and calls a question relevant when its words are in a passage', async () => {
  const found = await search('How often do tomatoes need water in summer?');
  assert.ok(found.relevant);
  assert.ok(found.results.every((r) => r.score >= 0 && r.score <= 1), JSON.stringify(found.results.map((r) => r.score)));
  assert.ok(found.results[0].score >= 0.5, `best score ${found.results[0].score}`);
  const gap = await search('What does the enterprise support plan cost per month?');
  assert.not.ok(gap.relevant, 'nothing in the documents is about pricing');
  assert.ok(gap.results.every((r) => r.score < 0.5));
});

test('questions in any script, emoji only or a page of unknown words answer without error and are gaps', async () => {
  for (const query of ['Как полить помидоры?', '番茄需要多少水', '🍅💧', 'zzqx '.repeat(400).trim(), 'ποτίζω ντομάτες']) {
    const found = await search(query);
    assert.not.ok(found.relevant, query.slice(0, 30));
  }
});

test('each document gives its best excerpt before another excerpt of a document already shown', async () => {
  const found = await search('tomatoes beans water frost', 3);
  assert.equal(new Set(found.results.slice(0, 2).map((r) => r.title)).size, 2, JSON.stringify(found.results.map((r) => r.title)));
});

test.run();
