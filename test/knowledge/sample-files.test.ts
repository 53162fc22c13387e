import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestSession } from '../helpers/auth.js';
import type { TestServer } from '../helpers/server.js';
import { HANDBOOK_PDF, type FakeSite } from './fake-site.js';
import { ingestionIdle, startKnowledgeWorld, type KnowledgeWorld } from './helpers.js';

const UPLOAD_LIMIT = 64 * 1024;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/knowledge/${name}`, import.meta.url));

let server: TestServer;
let owner: TestSession;
let site: FakeSite;

let world: KnowledgeWorld;

test.before(async () => {
  world = await startKnowledgeWorld({ UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT) });
  ({ server, owner, site } = world);
});
test.after(() => world.close());

const api = (method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: owner.headers });
const upload = (bytes: Buffer, contentType: string, filename: string) =>
  server.fetch(`/api/v1/knowledge/files?filename=${encodeURIComponent(filename)}`, { method: 'POST', headers: { ...owner.headers, 'content-type': contentType }, body: new Uint8Array(bytes) })
    .then(async (res) => ({ status: res.status, body: await res.json() as any }));
const sources = async () => (await api('GET', '/api/v1/knowledge')).body.items;
async function search(query: string, sourceId: string) {
  const r = await api('POST', '/api/v1/knowledge/search', { query, sourceIds: [sourceId], topK: 3 });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.results as Array<{ excerpt: string; title: string; url: string | null }>;
}

test('the sample PDF, HTML, Markdown and a text file are uploaded, indexed and found', async () => {
  const pdf = await upload(fixture('handbook.pdf'), 'application/pdf', 'handbook.pdf');
  const html = await upload(fixture('opening-hours.html'), 'text/html', 'opening-hours.html');
  const md = await upload(fixture('care-guide.md'), 'text/markdown', 'care-guide.md');
  const txt = await upload(Buffer.from('Gift wrapping costs two euros per parcel and is available all year.\n'), 'text/plain', 'gift-wrap.txt');
  for (const r of [pdf, html, md, txt]) assert.is(r.status, 201, JSON.stringify(r.body));
  await ingestionIdle(server.app);
  const list = await sources();
  for (const r of [pdf, html, md, txt]) assert.is(list.find((s: any) => s.id === r.body.id).status, 'ready');
  assert.is(list.find((s: any) => s.id === pdf.body.id).chunkCount >= 3, true, 'one chunk or more per PDF page');

  const warranty = await search('fifteen-year warranty on spades', pdf.body.id);
  assert.ok(warranty[0].excerpt.startsWith('Page 3'), warranty[0].excerpt);
  assert.is(warranty[0].title, 'Example Gardens handbook');
  assert.ok((await search('parsnip seed fresh', pdf.body.id))[0].excerpt.includes('Parsnip seed'));

  const dogs = await search('are dogs allowed in the greenhouse', html.body.id);
  assert.ok(dogs[0].excerpt.includes('short lead'), dogs[0].excerpt);
  assert.is(dogs[0].title, 'Visiting the nursery');
  assert.not.ok(dogs.some((r) => r.excerpt.includes('All rights reserved')), 'the footer is not content');

  const orchid = await search('minimum temperature for an orchid', md.body.id);
  assert.ok(orchid[0].excerpt.includes('| Orchid | east-facing window | 18 °C |'), orchid[0].excerpt);
  const water = await search('carnivorous plants rainwater', md.body.id);
  assert.ok(water[0].excerpt.includes('- Use rainwater for carnivorous plants'), water[0].excerpt);

  assert.ok((await search('gift wrapping price', txt.body.id))[0].excerpt.includes('two euros per parcel'));
});

test('an upload over UPLOAD_LIMIT_BYTES is refused and nothing is stored', async () => {
  const before = (await sources()).length;
  const r = await upload(Buffer.alloc(UPLOAD_LIMIT + 1, 'a'), 'text/plain', 'huge.txt');
  assert.is(r.status, 413, JSON.stringify(r.body));
  assert.is((await sources()).length, before);
  assert.not.ok((await sources()).some((s: any) => s.file?.filename === 'huge.txt'));
});

test('a Markdown page and a PDF served by a website are ingested and found', async () => {
  const notes = await api('POST', '/api/v1/knowledge', { kind: 'page', url: `${site.url}/notes.md` });
  const pdf = await api('POST', '/api/v1/knowledge', { kind: 'page', url: `${site.url}/handbook.pdf` });
  await ingestionIdle(server.app);
  const hours = await search('when is the shop open on Saturday', notes.body.id);
  assert.ok(hours[0].excerpt.includes('Monday to Saturday, 9:00 to 17:30'), hours[0].excerpt);
  assert.is(hours[0].url, `${site.url}/notes.md`);
  const heat = await search('paraffin heater greenhouse frost', pdf.body.id);
  assert.ok(heat[0].excerpt.startsWith('Page 2'), heat[0].excerpt);
  assert.is(heat[0].url, `${site.url}/handbook.pdf`);
  assert.equal(readFileSync(HANDBOOK_PDF).subarray(0, 5).toString('latin1'), '%PDF-');
});

test.run();
