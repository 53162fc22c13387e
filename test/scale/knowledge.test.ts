/**
 * Knowledge ingestion in a scale-out group: a crawl whose process is killed (kill -9) in the middle is
 * resumed by exactly one other process and ends ready, each page's chunks stored once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor, until } from '../helpers/until.js';
import { startFakeSite, type FakeSite } from '../knowledge/fake-site.js';
import { must, startGroupWorld, type GroupWorld } from './world.js';

let world: GroupWorld;
let site: FakeSite;
/**
 * Longer than the other scale tests' 1.5 s: a resuming process frozen past its claim (a busy CI machine starting
 * other test servers) would let a second one take the job up, and "resumed once" would fail for the machine's sake.
 */
const LEASE_MS = 4000;

test.before(async () => {
  [world, site] = await Promise.all([startGroupWorld({ env: { LEASE_MS: String(LEASE_MS) } }), startFakeSite()]);
});
test.after(async () => {
  await world?.close();
  await site?.close();
});

test('a crawl whose process is killed mid-way is resumed by exactly one other process and ends ready, each chunk once', async () => {
  const { owner } = world;
  site.hold();
  const created = must('add source', await world.w(0).request('POST', '/api/v1/knowledge', { headers: owner.headers, body: { kind: 'crawl', url: `${site.url}/`, settings: { maxDepth: 1 } } }), 201);
  await site.waitFor('/');
  site.release(); // the start page is answered ...
  site.hold(); // ... and the pages it links to wait, so the process dies in the middle of the job
  await site.waitFor('/about.html');
  const victim = world.group.workers[0];
  process.kill(victim.pid, 'SIGKILL');
  site.release();

  // Another process takes the job over once its claim lapses (LEASE_MS).
  const source = await until(async () => must('sources', await world.w(1).request('GET', '/api/v1/knowledge', { headers: owner.headers }), 200).items.find((s: any) => s.id === created.id), {
    ok: (s: any) => s.status === 'ready' || s.status === 'failed', timeout: 30_000, interval: 200, message: 'the source finished (ready or failed) through another process',
  });
  assert.is(source.status, 'ready', `the source ends ready: ${JSON.stringify(source)}`);
  assert.is(source.documentCount, 4);
  assert.equal(source.progress, { done: 4, total: 4 });

  // Every process looks for lapsed jobs every LEASE_MS: a finished job must not be taken up again.
  await quietFor(2 * LEASE_MS + 500, 'another process taking the finished job up again');
  const resumedBy = world.group.logs.filter((l) => l.msg === 'knowledge ingestion resumed on this process' && l.sourceId === created.id);
  assert.is(resumedBy.length, 1, `resumed once, and not again once done: ${JSON.stringify(resumedBy)}`);
  assert.is.not(resumedBy[0].pid, victim.pid, 'by another process than the killed one');

  const docs = must('documents', await world.w(2).request('GET', `/api/v1/knowledge/${created.id}/documents`, { headers: owner.headers }), 200).items;
  assert.is(docs.length, 4);
  assert.is(new Set(docs.map((d: any) => d.url)).size, 4, 'each page stored once');
  assert.is(docs.reduce((n: number, d: any) => n + d.chunkCount, 0), source.chunkCount, "the source's chunks are its pages' chunks, none twice");
  assert.is(site.requests.filter((p) => p === '/').length, 1, 'the page done before the kill is not fetched again');
  for (const page of ['/about.html', '/guides/tomatoes.html', '/guides/compost.html']) {
    assert.ok(site.requests.filter((p) => p === page).length <= 2, `${page}: fetched by the killed process at most once, then once by the one that resumed`);
  }
});

test.run();
