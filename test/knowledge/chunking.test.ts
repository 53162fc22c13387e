import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chunkMarkdown } from '../../src/documents/chunk.js';
import { parseHtml } from '../../src/documents/html.js';
import { parseDocument, sniffDocumentType } from '../../src/documents/parse.js';
import { openEmbeddedLexical } from '../../src/store/lexical-embedded.js';
import { makePdf } from './helpers.js';

test('every chunk starts with its heading path', () => {
  const chunks = chunkMarkdown('# Guide\n\nIntro.\n\n## Install\n\n### Linux\n\nUse the package manager.\n\n## Use\n\nRun it.');
  assert.equal(chunks.map((c) => c.heading), ['Guide', 'Guide > Install > Linux', 'Guide > Use']);
  assert.is(chunks[1].text, 'Guide > Install > Linux\n\nUse the package manager.');
});

test('long prose is cut near the target size with a small overlap', () => {
  const sentence = 'Plants need light, water and nutrients to grow well in every season. ';
  const chunks = chunkMarkdown(`# Care\n\n${sentence.repeat(60)}`);
  assert.ok(chunks.length >= 3);
  for (const c of chunks) assert.ok(c.text.length <= 1300, `chunk of ${c.text.length}`);
  const tail = chunks[0].text.slice(-60).trim();
  assert.ok(chunks[1].text.includes(tail.slice(tail.indexOf(' ') + 1)), 'the next chunk repeats the end of the previous one');
});

test('a long table is split between rows and every part keeps the header row', () => {
  const rows = Array.from({ length: 80 }, (_, i) => `| item ${i} | ${'description '.repeat(3)}|`).join('\n');
  const chunks = chunkMarkdown(`# Prices\n\n| Item | Description |\n|---|---|\n${rows}\n`);
  assert.ok(chunks.length > 1);
  for (const c of chunks) assert.ok(c.text.startsWith('Prices\n\n| Item | Description |\n|---|---|'), c.text.slice(0, 80));
  const all = chunks.map((c) => c.text).join('\n');
  for (let i = 0; i < 80; i++) assert.ok(all.includes(`| item ${i} |`));
});

test('a list is split between items, never inside one', () => {
  const items = Array.from({ length: 60 }, (_, i) => `- step ${i}: ${'water the seedlings gently '.repeat(2)}`).join('\n');
  const chunks = chunkMarkdown(`# Steps\n\n${items}\n`);
  assert.ok(chunks.length > 1);
  for (const c of chunks) for (const line of c.text.split('\n').slice(2)) assert.match(line, /^- step \d+: /);
});

test('HTML becomes Markdown with headings, nested lists and tables, without navigation', () => {
  const p = parseHtml(`<html><head><title>Care guide</title></head><body><nav><a href="/a">Menu</a></nav><main><article>
    <h1>Care guide</h1><p>${'Water regularly and keep the soil moist. '.repeat(6)}</p>
    <h2>Tools</h2><ul><li>Spade<ul><li>Small spade</li></ul></li><li>Rake</li></ul>
    <table><tr><th>Month</th><th>Task</th></tr><tr><td>May</td><td>Plant out</td></tr></table>
    <a href="/next#top">next</a></article></main><footer>Footer text</footer></body></html>`, 'https://example.com/guide/');
  assert.is(p.title, 'Care guide');
  assert.match(p.markdown, /## Tools/);
  assert.match(p.markdown, /- Spade\n {2}- Small spade\n- Rake/);
  assert.match(p.markdown, /\| Month \| Task \|\n\| --- \| --- \|\n\| May \| Plant out \|/);
  assert.not.match(p.markdown, /Menu|Footer text/);
  assert.equal(p.links, ['https://example.com/a', 'https://example.com/next']);
});

test('magic bytes decide the type: PDFs by %PDF-, text must be UTF-8 without NUL bytes', async () => {
  const pdf = await makePdf([{ heading: 'One', lines: ['first page'] }, { heading: 'Two', lines: ['second page'] }]);
  assert.is(sniffDocumentType(pdf, 'text/plain', 'notes.txt'), 'pdf');
  assert.is(sniffDocumentType(Buffer.from('# Title'), 'text/markdown', 'a.md'), 'markdown');
  assert.is(sniffDocumentType(Buffer.from('<!doctype html><p>x'), 'application/octet-stream', 'page'), 'html');
  assert.is(sniffDocumentType(Buffer.from('plain words'), '', 'a.txt'), 'text');
  assert.throws(() => sniffDocumentType(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2]), 'text/plain', 'a.txt'), /ZIP/);
  assert.throws(() => sniffDocumentType(Buffer.from([0x61, 0x00, 0x62]), 'text/plain', 'a.txt'), /binary/);
  assert.throws(() => sniffDocumentType(Buffer.from([0x61, 0xff, 0xfe, 0x62]), 'text/plain', 'a.txt'), /UTF-8/);
  const parsed = await parseDocument(pdf, 'pdf');
  assert.is(parsed.pages, 2);
  assert.match(parsed.markdown, /## Page 1\n\nOne\nfirst page/);
  assert.match(parsed.markdown, /## Page 2\n\nTwo\nsecond page/);
});

test('the lexical index ranks by BM25, stays inside a workspace and replaces entries by id', async () => {
  const lex = openEmbeddedLexical(null);
  const e = (id: string, ws: string, text: string, sourceId = 'ks_1') => ({ id, workspaceId: ws, sourceId, documentId: `kdoc_${id}`, title: 'T', text });
  await lex.upsert([
    e('a', 'ws_1', 'Tomatoes need full sun and deep watering.'), e('b', 'ws_1', 'Compost heaps need turning.'),
    e('c', 'ws_2', 'Tomatoes in another workspace.'), e('d', 'ws_1', 'Tomato tomatoes tomatoes everywhere', 'ks_2'),
  ]);
  const hits = await lex.search('ws_1', ['tomatoes', 'watering'], { limit: 10 });
  assert.equal(hits.map((h) => h.id).sort(), ['a', 'd']);
  assert.is(hits[0].id, 'a', 'two matched terms beat one repeated term');
  assert.is(hits[0].matchedTerms, 2);
  assert.equal((await lex.search('ws_1', ['tomatoes'], { sourceIds: ['ks_2'], limit: 10 })).map((h) => h.id), ['d']);
  assert.equal((await lex.search('ws_2', ['tomatoes'], { limit: 10 })).map((h) => h.id), ['c']);
  assert.equal(await lex.search('ws_3', ['tomatoes'], { limit: 10 }), []);
  await lex.upsert([e('a', 'ws_1', 'Now about roses only.')]);
  assert.is(await lex.count({ workspaceId: 'ws_1' }), 3);
  assert.equal((await lex.search('ws_1', ['watering'], { limit: 10 })).map((h) => h.id), []);
  assert.is(await lex.deleteWhere({ workspaceId: 'ws_1', sourceId: 'ks_2' }), 1);
  assert.is(await lex.count({ workspaceId: 'ws_2' }), 1);
  await lex.close();
});

test.run();
