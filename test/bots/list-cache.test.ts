/** The bots list cache on its own (src/bots/list-cache.ts): reads that race a change, and the lifetime. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppContext } from '../../src/app/context.js';
import { BotLists, LIST_TTL_MS, MAX_KEPT_BOTS, type BotListItem } from '../../src/bots/list-cache.js';
import { FakeClock } from '../../src/kernel/clock.js';

const item = (id: string, name = id): BotListItem => ({
  id, name, status: 'running', revision: 1, publishedVersion: null, publishedAt: null, createdAt: 1, updatedAt: 1,
});
const names = (body: Buffer | null) => (JSON.parse(String(body)).items as BotListItem[]).map((b) => b.name);

/** A loader whose reads the test settles by hand, in any order. */
function manualLoader() {
  const reads: Array<(items: BotListItem[] | null) => void> = [];
  return { reads, load: () => new Promise<BotListItem[] | null>((resolve) => reads.push(resolve)) };
}

function world() {
  const clock = new FakeClock();
  const app = { clock, log: { warn() {} } } as unknown as AppContext;
  return { clock, lists: new BotLists(app) };
}

test('a list read while a change was made is not kept, and a later request does not join that read', async () => {
  const { lists } = world();
  const { reads, load } = manualLoader();
  const early = lists.page('ws', load) as Promise<Buffer | null>;
  lists.drop('ws'); // a bot was changed while the first read was under way
  const late = lists.page('ws', load) as Promise<Buffer | null>;
  assert.is(reads.length, 2, 'the request after the change reads again');
  reads[1]([item('bot_b', 'after')]);
  reads[0]([item('bot_a', 'before')]);
  assert.equal(names(await early), ['before']);
  assert.equal(names(await late), ['after']);
  assert.equal(names(lists.page('ws', load) as Buffer), ['after'], 'the read begun after the change is the one kept');
  assert.is(reads.length, 2);
});

test('requests while one read is under way share it; a kept list is answered at once', async () => {
  const { lists } = world();
  const { reads, load } = manualLoader();
  const a = lists.page('ws', load);
  const b = lists.page('ws', load);
  assert.is(reads.length, 1);
  reads[0]([item('bot_1')]);
  assert.equal(names(await a), names(await b));
  const kept = lists.page('ws', load);
  assert.ok(Buffer.isBuffer(kept), 'no promise: answered within the request');
  assert.is(lists.page('ws', load), kept, 'the same bytes each time');
});

test('a lapsed list is answered once more while it is read again; then the new one', async () => {
  const { lists, clock } = world();
  const { reads, load } = manualLoader();
  const first = lists.page('ws', load);
  reads[0]([item('bot_1', 'old')]);
  await first;
  await clock.advance(LIST_TTL_MS);
  assert.equal(names(lists.page('ws', load) as Buffer), ['old']);
  assert.equal(names(lists.page('ws', load) as Buffer), ['old'], 'one read again at a time');
  assert.is(reads.length, 2);
  reads[1]([item('bot_1', 'new')]);
  await new Promise((r) => setImmediate(r));
  assert.equal(names(lists.page('ws', load) as Buffer), ['new']);
});

test('a lapsed list whose new read fails is not answered again', async () => {
  const { lists, clock } = world();
  const { reads, load } = manualLoader();
  const first = lists.page('ws', load);
  reads[0]([item('bot_1')]);
  await first;
  await clock.advance(LIST_TTL_MS);
  const failing = () => Promise.reject(new Error('store down'));
  assert.ok(Buffer.isBuffer(lists.page('ws', failing)), 'answered once more while it is read again');
  await new Promise((r) => setImmediate(r));
  assert.not.ok(lists.keeps('ws'), 'the next request goes to the store');
});

test('a workspace with too many bots to keep is left to the store', async () => {
  const { lists } = world();
  const { reads, load } = manualLoader();
  const p = lists.page('ws', load);
  reads[0](null);
  assert.is(await p, null);
  assert.is(lists.page('ws', load), null);
  assert.ok(MAX_KEPT_BOTS >= 200, 'at least the largest page');
});

test.run();
