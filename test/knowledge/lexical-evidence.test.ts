import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fuse, LOCAL_FUSION } from '../../src/knowledge/fusion.js';
import { queryTerms } from '../../src/knowledge/search.js';
import { openEmbeddedLexical } from '../../src/store/lexical-embedded.js';
import { bestCorrection } from '../../src/store/lexical-terms.js';

// Issue 24, fourth pass: typo correction against porter stems, and questions that meet the documents only on
// words found everywhere.

const entry = (id: string, text: string, title = 'Pump manual') => ({ id, workspaceId: 'ws_1', sourceId: 'ks_1', documentId: `kdoc_${id}`, title, text });

test('a misspelt ending is corrected to the indexed stem the word starts with, not to a rarer word one letter away', () => {
  // The index holds porter stems: "connection" is stored as "connect", two edits from "connecton".
  const vocabulary = [{ term: 'connect', doc: 120 }, { term: 'connector', doc: 12 }];
  assert.equal(bestCorrection('connecton', vocabulary), { term: 'connect', df: 120 });
  assert.equal(bestCorrection('certifcate', [{ term: 'certif', doc: 5 }]), { term: 'certif', df: 5 });
  assert.is(bestCorrection('installiere', [{ term: 'instal', doc: 23 }]), null, 'four letters after the stem are another word, not an ending');
  assert.is(bestCorrection('servant', [{ term: 'serv', doc: 40 }]), null, 'a stem under 5 letters starts too many words');
});

test('through the index, "connecton" finds the passages about connections', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([
    entry('a', 'Each connection to the pump is kept open; connections close after an idle minute.'),
    entry('b', 'Count the open connections with pump.stats().'),
    entry('c', 'The hose connector is sold separately.'),
    ...Array.from({ length: 6 }, (_, i) => entry(`f${i}`, `Step ${i}: fill the tank with water.`)),
  ]);
  const hits = await lex.search('ws_1', queryTerms('open connecton count'), { limit: 5 });
  assert.ok(['a', 'b'].includes(hits[0].id), `best hit ${hits[0]?.id}`);
  assert.not.ok(hits.slice(0, 2).some((h) => h.id === 'c'), 'the connector passage is not what was asked');
  await lex.close();
});

// 100 passages about the pump's 'client' (the everyday word of these documents), a few with specific words.
const manual = () => [
  ...Array.from({ length: 97 }, (_, i) => entry(`p${i}`, `Pump model ${i}: the client manual explains how to prime it.`)),
  entry('v', 'Close the client valve before cleaning the pump.'),
  entry('w', 'Winter storage: drain the tank.'),
  entry('x', 'Spare fuses are in the lid.'),
];

test('each hit reports how common its most specific matching word is', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert(manual());
  const hits = await lex.search('ws_1', ['pump', 'valve'], { limit: 10 });
  assert.is(hits[0].id, 'v');
  assert.is(hits[0].rarestShare, 0.01, 'valve is in 1 of 100 passages');
  assert.is(hits[1].rarestShare, 1, 'pump is in all 100 (every title says it)');
  await lex.close();
});

test('in a small knowledge base no word counts as everyday', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([entry('a', 'The client valve: close it before cleaning.'), entry('b', 'Drain the tank in winter.')]);
  const hits = await lex.search('ws_1', queryTerms('¿Cuál es el horario de atención al cliente?'), { limit: 5 });
  assert.is(hits[0].rarestShare, 0.01, '1 of 2 passages, counted against 100');
  assert.ok(fuse(hits, [], LOCAL_FUSION, '¿Cuál es el horario de atención al cliente?').best >= 0.5, 'as before: a question in another language is judged by its known words');
  await lex.close();
});

test('a question in another language that meets the documents only on an everyday word is not relevant', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert(manual());
  // "cliente" is read as "client" (in 98 of 100 passages); "horario" and "atención" are nowhere.
  const generic = await lex.search('ws_1', queryTerms('¿Cuál es el horario de atención al cliente?'), { limit: 5 });
  assert.ok(generic[0].unknownShare >= 0.5 && generic[0].rarestShare >= 0.2, JSON.stringify(generic[0]));
  assert.ok(fuse(generic, [], LOCAL_FUSION, '¿Cuál es el horario de atención al cliente?').best < 0.5, 'a gap');
  // The same share of unknown words, but it holds a specific word: the foreign words may say the same thing.
  const specific = await lex.search('ws_1', queryTerms('¿Cómo cierro rápido la valve del cliente?'), { limit: 5 });
  assert.ok(specific[0].unknownShare >= 0.5 && specific[0].rarestShare < 0.2, JSON.stringify(specific[0]));
  assert.ok(fuse(specific, [], LOCAL_FUSION, '¿Cómo cierro rápido la valve del cliente?').best >= 0.5, 'answerable');
  await lex.close();
});

test('a question in another language is judged on the words the documents know, not diluted by its own', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert(manual());
  // Only "tank" is a word of these English passages; the French words around it are unknown to them.
  const q = 'Comment vider complètement le réservoir et le tank de la pompe avant l\'hiver ?';
  const hits = await lex.search('ws_1', queryTerms(q), { limit: 5 });
  assert.is(hits[0].id, 'w');
  assert.ok(hits[0].coverage < 0.24, `over all its words the passage covers little of the question (${hits[0].coverage})`);
  assert.is(hits[0].knownCoverage, 1, 'but all of the words the documents know');
  assert.ok(fuse(hits, [], LOCAL_FUSION, q).best >= 0.5, 'relevant');
  // The same passage for an English question with the same unknown words stays judged on all of them.
  const english = 'How do I empty the reservoir and the tank completely before winterizing?';
  const en = await lex.search('ws_1', queryTerms(english), { limit: 5 });
  assert.ok(fuse(en, [], LOCAL_FUSION, english).best < 0.5, 'most of an English question unknown to English documents: a gap');
  await lex.close();
});

test('a document\'s entries are replaced at once: the new passages in, the ones it no longer has out', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([entry('d1', 'Old text about the valve.'), { ...entry('d2', 'Old text about the hose.'), documentId: 'kdoc_d1' }, entry('x', 'The lid holds the fuses.')]);
  await lex.replaceDocument('ws_1', 'kdoc_d1', [entry('d1', 'New text about the pressure gauge.')]);
  assert.is(await lex.count({ workspaceId: 'ws_1', documentId: 'kdoc_d1' }), 1);
  assert.equal((await lex.search('ws_1', ['gauge'], { limit: 5 })).map((h) => h.id), ['d1']);
  assert.equal(await lex.search('ws_1', ['hose'], { limit: 5 }), [], 'the passage the new version dropped is gone');
  assert.equal((await lex.search('ws_1', ['fuses'], { limit: 5 })).map((h) => h.id), ['x'], 'other documents are untouched');
  await lex.close();
});

test.run();
