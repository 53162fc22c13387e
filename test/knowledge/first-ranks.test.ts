import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropNearDuplicates, rerankLexical } from '../../src/knowledge/fusion.js';
import { queryTerms } from '../../src/knowledge/search.js';
import { openEmbeddedLexical } from '../../src/store/lexical-embedded.js';
import { splitOldHeadings } from '../../src/store/lexical-headings.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { setupOwner } from '../helpers/auth.js';
import { startTestServer } from '../helpers/server.js';
import { ingestionIdle } from './helpers.js';

/**
 * Issue 39, "better first ranks": the heading path as a field of its own weight, a passage's neighbours as
 * context, near-identical passages after different answers, and the lexical index's migration from the layout
 * before (title and heading path in one column).
 */
const entry = (id: string, doc: string, title: string, heading: string, text: string) =>
  ({ id, workspaceId: 'ws_1', sourceId: 'ks_1', documentId: doc, title, heading, text: heading ? `${heading}\n\n${text}` : text });
const filler = Array.from({ length: 12 }, (_, i) => entry(`f${i}`, `kdoc_f${i}`, `Bed ${i}`, 'Notes', `Bed ${i} holds carrots and onions; weed it on Saturdays.`));

test('a section whose heading names the question comes before a page that only has the words in its title', async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([
    ...filler,
    // The page's title and a passage about tools share the question's words (as a section's heading did before,
    // when title and heading path were one column: this passage came first).
    entry('title', 'kdoc_roses', 'Pruning roses', 'Tools', 'Pruning shears for roses: keep them sharp and clean.'),
    // The answer: a section of the shrubs page headed "Pruning roses".
    entry('heading', 'kdoc_shrubs', 'Shrubs', 'Pruning roses', 'Cut back to an outward bud in early spring.'),
  ]);
  const hits = await lex.search('ws_1', queryTerms('When is pruning roses done?'), { limit: 5 });
  assert.is(rerankLexical(hits)[0].id, 'heading', JSON.stringify(hits.map((h) => [h.id, h.score.toFixed(3)])));
  await lex.close();
});

test("a passage whose neighbour holds the question's other word ranks above one that stands alone", async () => {
  const lex = openEmbeddedLexical(null);
  await lex.upsert([
    ...filler,
    // Short, so BM25 alone puts it above the planting passage (it did before neighbours counted).
    entry('alone', 'kdoc_roses', 'Roses', 'Companions', 'Garlic cloves beside roses.'),
  ]);
  // One document, two passages in order: the garlic section goes on about the harvest in the next passage.
  await lex.replaceDocument('ws_1', 'kdoc_garlic', [
    entry('plant', 'kdoc_garlic', 'Growing garlic', 'Planting', 'Plant garlic cloves in autumn, pointed end up, a hand apart in loose soil.'),
    entry('later', 'kdoc_garlic', 'Growing garlic', 'Later', 'Harvest in July, when the lower leaves turn brown.'),
  ]);
  const hits = await lex.search('ws_1', queryTerms('When do I harvest garlic cloves?'), { limit: 10 });
  const plant = hits.find((h) => h.id === 'plant')!;
  const alone = hits.find((h) => h.id === 'alone')!;
  assert.ok(plant.contextCoverage > plant.coverage, `"harvest" is in the next passage: ${JSON.stringify(plant)}`);
  assert.is(alone.contextCoverage, alone.coverage, 'a passage without neighbours gains nothing');
  const order = rerankLexical(hits).map((h) => h.id);
  assert.ok(order.indexOf('plant') < order.indexOf('alone'), order.join(', '));
  await lex.close();
});

test('near-identical passages come after the different answers; order is otherwise kept', () => {
  const notice = 'Connections are kept alive for 4 seconds by default; set keepAliveTimeout to change it.';
  const texts: Record<string, string> = {
    a: `Client > Options\n\n${notice}`,
    b: `Dispatcher > Options\n\n${notice}`,
    c: 'Pool > Options\n\nA pool opens up to connections sockets to one origin and reuses them.',
    d: 'Agent\n\nAn agent keeps one pool per origin.',
  };
  assert.equal(dropNearDuplicates(['a', 'b', 'c', 'd'], (id) => texts[id]), ['a', 'c', 'd', 'b']);
  assert.equal(dropNearDuplicates(['c', 'a', 'd'], (id) => texts[id]), ['c', 'a', 'd'], 'nothing to move');
  assert.equal(dropNearDuplicates(['a', 'x', 'b'], (id) => texts[id]), ['a', 'x', 'b'].filter((id) => id !== 'b').concat('b'), 'a passage whose record is gone stays where it was');
});

test('through the search route, the top results are different answers, not the same text twice', async () => {
  const server = await startTestServer();
  try {
    const owner = await setupOwner(server);
    const notice = 'Refunds: an order can be returned within 30 days of delivery for a full refund, shipping included.';
    const add = async (name: string, text: string) => {
      const r = await server.request('POST', '/api/v1/knowledge', { headers: owner.headers, body: { kind: 'text', name, text } });
      assert.is(r.status, 201, JSON.stringify(r.body));
      await ingestionIdle(server.app, r.body.id);
    };
    await add('Shoes', `# Shoes\n\n${notice}`);
    await add('Shirts', `# Shirts\n\n${notice}`);
    await add('Gift cards', '# Gift cards\n\nGift cards cannot be returned; an unused card is refunded within 30 days of purchase.');
    const r = await server.request('POST', '/api/v1/knowledge/search', { headers: owner.headers, body: { query: 'Can I return an order for a refund within 30 days?', topK: 3 } });
    assert.is(r.status, 200);
    const titles = (r.body.results as Array<{ title: string }>).map((x) => x.title);
    assert.is(titles.length, 3);
    assert.is(titles[1], 'Gift cards', `the copy of the refund notice comes last: ${titles.join(', ')}`);
  } finally {
    await server.stop();
  }
});

/** A lexical file of the layout before issue 39, as that version wrote it: title and heading path in one column. */
function writeOldLayout(dir: string, entries: ReturnType<typeof entry>[]) {
  const old = openSqlite(join(dir, 'lexical.db'));
  old.exec('CREATE TABLE lex_meta (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, ws TEXT NOT NULL, source TEXT NOT NULL, doc TEXT NOT NULL)');
  old.exec(`CREATE VIRTUAL TABLE lex_fts USING fts5(title, body, ws, src, tokenize = 'porter unicode61 remove_diacritics 2')`);
  old.exec(`INSERT INTO lex_fts (lex_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0, 0.0, 0.0)')`);
  old.exec('CREATE TABLE lex_info (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  old.exec("INSERT INTO lex_info (key, value) VALUES ('file_id', 'oldfile')");
  entries.forEach((e, i) => {
    old.prepare('INSERT INTO lex_meta (rid, id, ws, source, doc) VALUES (?, ?, ?, ?, ?)').run(i + 1, e.id, 'ws_1', 'ks_1', e.documentId);
    // The old writer: `${title} ${heading}` when the passage had a heading; the text starts with the heading path.
    old.prepare('INSERT INTO lex_fts (rowid, title, body, ws, src) VALUES (?, ?, ?, ?, ?)').run(i + 1, e.heading ? `${e.title} ${e.heading}` : e.title, e.text, 'wws1', 'sks1');
  });
  old.close();
}

const fields = (dir: string) => {
  const db = openSqlite(join(dir, 'lexical.db'));
  try {
    return Object.fromEntries((db.prepare('SELECT m.id, f.title, f.heading FROM lex_fts f JOIN lex_meta m ON m.rid = f.rowid').all() as Array<{ id: string; title: string; heading: string }>).map((r) => [r.id, [r.title, r.heading]]));
  } finally { db.close(); }
};

test('a lexical index written before headings had their own field is migrated and keeps finding its passages', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-lex-migrate-'));
  try {
    writeOldLayout(dir, [entry('kch_old', 'kdoc_old', 'Growing garlic', 'Planting', 'Plant garlic cloves in autumn.')]);
    const lex = openEmbeddedLexical(dir);
    assert.is(lex.fileId, 'oldfile', 'the file keeps its id (replicas compare it)');
    const found = await lex.search('ws_1', queryTerms('garlic cloves'), { limit: 5 });
    assert.equal(found.map((h) => [h.id, h.documentId]), [['kch_old', 'kdoc_old']]);
    assert.is(found[0].coverage, 1);
    // New entries are written with the heading field; old and new are searched together, deletes still work.
    await lex.upsert([entry('kch_new', 'kdoc_new', 'Shrubs', 'Pruning roses', 'Cut back to an outward bud in early spring.')]);
    assert.equal((await lex.search('ws_1', queryTerms('pruning roses'), { limit: 5 })).map((h) => h.id), ['kch_new']);
    assert.is(await lex.deleteWhere({ workspaceId: 'ws_1', documentId: 'kdoc_old' }), 1);
    assert.is(await lex.count({ workspaceId: 'ws_1' }), 1);
    await lex.close();
    // Opening again does not migrate twice.
    const again = openEmbeddedLexical(dir);
    assert.is(await again.count({ workspaceId: 'ws_1' }), 1);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('passages of the old layout get the heading weight in the background after start, without a reindex', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-lex-headings-'));
  try {
    // The knowledge base of the first test, indexed by the version before issue 39: the page titled "Pruning
    // roses" came before the shrubs page's section headed so, and kept coming first after the upgrade.
    writeOldLayout(dir, [
      ...filler,
      entry('title', 'kdoc_roses', 'Pruning roses', 'Tools', 'Pruning shears for roses: keep them sharp and clean.'),
      entry('heading', 'kdoc_shrubs', 'Shrubs', 'Pruning roses', 'Cut back to an outward bud in early spring.'),
    ]);
    const lex = openEmbeddedLexical(dir);
    const first = async () => rerankLexical(await lex.search('ws_1', queryTerms('When is pruning roses done?'), { limit: 5 }))[0].id;
    const deadline = Date.now() + 5000;
    while ((await first()) !== 'heading' && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    assert.is(await first(), 'heading', 'the section headed with the question\'s words comes first once the file is migrated');
    await lex.close();
    const f = fields(dir);
    assert.equal(f.heading, ['Shrubs', 'Pruning roses']);
    assert.equal(f.title, ['Pruning roses', 'Tools']);
    assert.equal(f.f0, ['Bed 0', 'Notes']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the heading migration is bounded per step and resumes where it stopped after a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-lex-resume-'));
  try {
    writeOldLayout(dir, [
      ...filler.slice(0, 4),
      // No heading (text before a page's first heading): nothing to split.
      entry('plain', 'kdoc_plain', 'Bed notes', '', 'Water in the evening.\n\nNot at noon.'),
    ]);
    // Opened and closed at once (a restart before the first background step ran): only the layout is copied.
    await openEmbeddedLexical(dir).close();
    assert.equal(fields(dir).f0, ['Bed 0 Notes', '']);
    // One bounded step of two rows, as the background pass takes them (HEADING_SPLIT_BATCH each).
    const db = openSqlite(join(dir, 'lexical.db'));
    assert.equal(splitOldHeadings(db, 2), { split: 2, done: false });
    db.close();
    let f = fields(dir);
    assert.equal([f.f0, f.f1, f.f2], [['Bed 0', 'Notes'], ['Bed 1', 'Notes'], ['Bed 2 Notes', '']]);
    // The next start goes on from the third row and finishes.
    const lex = openEmbeddedLexical(dir);
    const deadline = Date.now() + 5000;
    while (fields(dir).f3[1] !== 'Notes' && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    await lex.close();
    f = fields(dir);
    assert.equal([f.f2, f.f3, f.plain], [['Bed 2', 'Notes'], ['Bed 3', 'Notes'], ['Bed notes', '']]);
    // Done is done: a step after the end changes nothing.
    const db2 = openSqlite(join(dir, 'lexical.db'));
    assert.equal(splitOldHeadings(db2, 2), { split: 0, done: true });
    db2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
