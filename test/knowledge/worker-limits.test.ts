import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closePool, configurePool, poolStats, type PoolOptions } from '../../workers/pool.js';
import { longPage, nestedDivs } from '../workers/hostile-html.js';
import { ingestionIdle, startKnowledgeWorld, uploadFile, type KnowledgeWorld } from './helpers.js';

let world: KnowledgeWorld;

test.before(async () => { world = await startKnowledgeWorld(); });
test.after(async () => {
  await world.close();
  configurePool({});
});

const api = (method: string, path: string, body?: unknown) => world.server.request(method, path, { body, headers: world.owner.headers });
const upload = (text: string, contentType: string, filename: string) => uploadFile(world, text, contentType, filename);
async function addPage(url: string): Promise<string> {
  const r = await api('POST', '/api/v1/knowledge', { kind: 'page', url });
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}
/** The source as the owner sees it, once its ingestion has finished, with its documents. */
async function settled(id: string) {
  await ingestionIdle(world.server.app, id);
  const source = (await api('GET', '/api/v1/knowledge')).body.items.find((s: { id: string }) => s.id === id);
  const documents = (await api('GET', `/api/v1/knowledge/${id}/documents`)).body.items;
  return { source, documents };
}
async function found(query: string, sourceId: string): Promise<string> {
  const r = await api('POST', '/api/v1/knowledge/search', { query, sourceIds: [sourceId], topK: 1 });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.results[0]?.excerpt ?? '';
}
/** The server's pool is started again with these options by the next task (the server keeps no thread). */
async function poolWith(options: PoolOptions): Promise<void> {
  await closePool();
  configurePool(options);
}

test('a page of 5,000 nested divs, uploaded or crawled, is indexed in seconds and its text is found', async () => {
  world.site.pages['/nested.html'] = nestedDivs();
  const started = performance.now();
  const ids = [await upload(nestedDivs(), 'text/html', 'nested.html'), await addPage(`${world.site.url}/nested.html`)];
  for (const id of ids) {
    const { source, documents } = await settled(id);
    assert.is(source.status, 'ready', source.error);
    assert.is(documents.length, 1);
    assert.match(await found('when does the greenhouse open', id), 'opens at nine');
  }
  const ms = performance.now() - started;
  console.log(`  two nested-div documents indexed in ${ms.toFixed(0)} ms`);
  // 2.5 s alone; parsing runs at nice +10 and slows many times beside busy neighbours. Without the prescan each parse
  // runs past the 30 s task limit and the source fails (the status above).
  assert.ok(ms < 60_000, `took ${ms} ms`);
});

test('a document past the time limit fails with the reason on its source, and the next document is indexed', async () => {
  await poolWith({ timeLimitsMs: { 'parse-document': 500 } });
  // About 80,000 elements: inside the size limits, and seconds of parsing; the limit here is half a second.
  world.site.pages['/long.html'] = longPage(1_500_000);
  const fileId = await upload(world.site.pages['/long.html'], 'text/html', 'long.html');
  const pageId = await addPage(`${world.site.url}/long.html`);

  const file = await settled(fileId);
  assert.is(file.source.status, 'failed');
  assert.match(file.source.error, /the document took longer than 0\.5 s to read; it may be too large or too deeply nested; upload its text as Markdown or plain text instead, or split it into smaller files/);
  assert.equal(file.documents, []);
  const page = await settled(pageId);
  assert.is(page.source.status, 'failed');
  assert.match(page.source.error, `${world.site.url}/long.html: the document took longer than 0.5 s to read`);
  assert.ok(poolStats().ingest.ended >= 2, 'both tasks were ended');

  // The ended threads were replaced: the lane goes on with the next document.
  const next = await upload('# Seeds\n\nSeed packets are stored in a cool, dry cupboard.\n', 'text/markdown', 'seeds.md');
  const after = await settled(next);
  assert.is(after.source.status, 'ready', after.source.error);
  assert.match(await found('where are seed packets stored', next), 'cool, dry cupboard');
});

test('a document past the memory limit fails with the reason on its source', async () => {
  await poolWith({ ingest: { maxHeapMb: 48 } });
  const id = await upload(longPage(1_500_000), 'text/html', 'long.html');
  const { source, documents } = await settled(id);
  assert.is(source.status, 'failed');
  assert.match(source.error, /the document needed more than 48 MB of memory to read; upload its text as Markdown or plain text instead/);
  assert.equal(documents, []);
  await poolWith({});
});

test('HTML past the size limits is refused before the parser with what to do', async () => {
  const tooMany = await upload(`<html><body>${'<i>a</i> '.repeat(120_000)}</body></html>`, 'text/html', 'many.html');
  const tooBig = await upload(`<html><body><pre>${'Long line of text. '.repeat(150_000)}</pre></body></html>`, 'text/html', 'big.html');
  const many = await settled(tooMany);
  assert.is(many.source.status, 'failed');
  assert.match(many.source.error, /the HTML has more than 100,000 elements after removing scripts, styles and images; split it into smaller files, or upload it as Markdown or plain text/);
  const big = await settled(tooBig);
  assert.is(big.source.status, 'failed');
  assert.match(big.source.error, /the HTML is 2\.7 MB and more than 2\.0 MB is left after removing scripts, styles and images \(at most 2\.0 MB is read\); split it/);
  // Bulk that is not text does not count: 3 MB of inline images around a short page.
  const images = await upload(longPage(3_000_000, 20_000), 'text/html', 'images.html');
  const ok = await settled(images);
  assert.is(ok.source.status, 'ready', ok.source.error);
});

test.run();
