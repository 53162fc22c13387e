import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fuse, LOCAL_FUSION, rerankLexical } from '../../src/knowledge/fusion.js';
import { queryTerms } from '../../src/knowledge/search.js';
import { openEmbeddedLexical } from '../../src/store/lexical-embedded.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ingestionIdle } from './helpers.js';

const entry = (id: string, text: string, title = 'Garden') => ({ id, workspaceId: 'ws_1', sourceId: 'ks_1', documentId: `kdoc_${id}`, title, text });
const filler = Array.from({ length: 12 }, (_, i) => entry(`f${i}`, i < 3 ? `Bed ${i}: frost came early.` : `Bed ${i} holds carrots and onions; weed it on Saturdays.`));

test('a passage holding both words of the question ranks above a short one repeating the rarer word', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([...filler, entry('repeat', 'Fleece: fleece, fleece.'), entry('answer', 'Before a frost, lay a fleece over the bed.')]);
  const hits = await lex.search('ws_1', queryTerms('Which fleece for frost?'), { limit: 10 });
  const seen = JSON.stringify(hits.slice(0, 2).map((h) => [h.id, h.score.toFixed(2), h.coverage]));
  assert.is(hits[0].id, 'repeat', `BM25 alone favours the short passage saying "fleece" three times: ${seen}`);
  const reranked = rerankLexical(hits);
  assert.is(reranked[0].id, 'answer', `the passage with frost too comes first: ${seen}`);
  assert.is(reranked.length, hits.length, 'nothing is dropped');
  await lex.close();
});

test('hybrid starts from the words-only order: a vector list without calibration only adds what the words missed', () => {
  const lex = [{ id: 'a', coverage: 0.3, score: 3, unknownShare: 0 }, { id: 'b', coverage: 1, score: 2.9, unknownShare: 0 }];
  assert.equal(fuse(lex, [], LOCAL_FUSION, 'Which fleece for frost?').order, ['b', 'a'], 'words alone: coverage decides the close call');
  assert.equal(fuse(lex, [{ id: 'c', score: 0.9 }, { id: 'a', score: 0.8 }], LOCAL_FUSION, 'Which fleece for frost?').order, ['b', 'a', 'c']);
  // Calibrated, a list that stands out and agrees with the words counts (issue 39).
  const calibration = { nullMean: 0.2, nullSd: 0.05, relatedMean: 0.5 };
  const vec = [{ id: 'a', score: 0.9 }, ...Array.from({ length: 49 }, (_, i) => ({ id: `v${i}`, score: 0.3 }))];
  assert.equal(fuse(lex, vec, LOCAL_FUSION, 'Which fleece for frost?', { calibration }).order.slice(0, 2), ['a', 'b']);
});

test('the words\' first keeps first place unless the vectors put the challenger first and leave it out (issue 39)', () => {
  const lex = [{ id: 'b', coverage: 1, score: 3, unknownShare: 0 }, { id: 'a', coverage: 0.5, score: 2.9, unknownShare: 0 }];
  const calibration = { nullMean: 0.2, nullSd: 0.05, relatedMean: 0.5 };
  const rest = Array.from({ length: 48 }, (_, i) => ({ id: `v${i}`, score: 0.3 }));
  const q = 'Which fleece for frost?';
  // The vectors like the words' second a little (their second place) and their own first more: a swap of the words'
  // first two on a small preference, what the weak embedder did to three first places of the fifth set.
  assert.equal(fuse(lex, [{ id: 'c', score: 0.9 }, { id: 'a', score: 0.85 }, ...rest], LOCAL_FUSION, q, { calibration }).order.slice(0, 3), ['b', 'a', 'c']);
  // The vectors put the words' second first and do not have the words' first among their best: it moves up.
  assert.equal(fuse(lex, [{ id: 'a', score: 0.9 }, ...rest], LOCAL_FUSION, q, { calibration }).order.slice(0, 2), ['a', 'b']);
  // Passages of one document count as one: a second passage of the words' first document may lead.
  const sameDoc = { calibration, documentOf: (id: string) => (id === 'b2' ? 'b' : id) };
  assert.equal(fuse([lex[0], { ...lex[1], id: 'b2' }], [{ id: 'c', score: 0.9 }, { id: 'b2', score: 0.85 }, ...rest], LOCAL_FUSION, q, sameDoc).order[0], 'b2');
});

test('a list recorded without BM25 scores keeps its order', () => {
  const hits = [{ id: 'a', coverage: 0.1 }, { id: 'b', coverage: 0.9 }];
  assert.equal(rerankLexical(hits).map((h) => h.id), ['a', 'b']);
});

test('the share of question words the documents never use is reported with every hit', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([...filler, entry('t', 'Tomatoes need water twice a week in summer.')]);
  const known = await lex.search('ws_1', ['tomatoes', 'water'], { limit: 5 });
  assert.is(known[0].unknownShare, 0);
  const half = await lex.search('ws_1', ['tomatoes', 'water', 'marzipan', 'helicopter'], { limit: 5 });
  assert.is(half[0].unknownShare, 0.5, 'two of four words are nowhere, not even as a typo of an indexed word');
  const typo = await lex.search('ws_1', ['tomatos', 'water'], { limit: 5 });
  assert.is(typo[0].unknownShare, 0, 'a misspelt word that is corrected counts as known');
  await lex.close();
});

test('an English question half of whose words the documents never use is not relevant; another language is exempt', () => {
  const lex = [{ id: 'a', coverage: 0.6, score: 5, unknownShare: 0.5 }];
  assert.ok(fuse(lex, [], LOCAL_FUSION, 'How do I water tomatoes on Mars with a drone?').best < 0.5);
  assert.ok(fuse([{ ...lex[0], unknownShare: 0.25 }], [], LOCAL_FUSION, 'How do I water tomatoes with a drone?').best >= 0.5);
  assert.ok(fuse(lex, [], LOCAL_FUSION, 'Wie gieße ich Tomaten mit einer Drohne?').best >= 0.5, 'German words are unknown to English documents, answerable or not');
});

let server: TestServer;
let owner: TestSession;
test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  const r = await server.request('POST', '/api/v1/knowledge', { headers: owner.headers, body: { kind: 'text', name: 'Tomatoes', text: '# Tomatoes\n\nTomatoes need water twice a week in summer; water them in the morning, at the foot of the plant.' } });
  await ingestionIdle(server.app, r.body.id);
});
test.after(() => server.stop());

test('through the search route, a question about something the documents never mention is a gap', async () => {
  const ask = async (query: string) => (await server.request('POST', '/api/v1/knowledge/search', { headers: owner.headers, body: { query, topK: 3 } })).body as { relevant: boolean; results: unknown[] };
  assert.ok((await ask('How often do tomatoes need water in summer?')).relevant);
  const gap = await ask('Can a drone on Mars water the tomatoes?');
  assert.not.ok(gap.relevant, 'drone and Mars are nowhere in the documents');
  assert.ok(gap.results.length > 0, 'the passages found are still returned');
});

test.run();
