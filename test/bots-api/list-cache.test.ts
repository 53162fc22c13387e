/**
 * The bots list is answered from memory once read (src/bots/list-cache.ts). These tests read it, change the bots
 * in every way the API allows, and read it again at once: the change must show on the very next request.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { botLists, LIST_TTL_MS, MAX_KEPT_BOTS } from '../../src/bots/list-cache.js';
import { type BotRecord } from '../../src/bots/records.js';
import { addMember, createToken, type TestSession } from '../helpers/auth.js';
import { startWorld, type World } from './setup.js';

let w: World;
test.before(async () => {
  w = await startWorld();
  await w.connectOpenAI();
});
test.after(async () => { await w.close(); });

interface Item { id: string; name: string; status: string; revision: number; publishedVersion: number | null; updatedAt: number }
const list = async (headers: Record<string, string> = w.owner.headers, query = ''): Promise<Item[]> => {
  const r = await w.server.request('GET', `/api/v1/bots${query}`, { headers });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.items;
};
const one = async (id: string) => (await list()).find((b) => b.id === id);
const ok = async (method: string, path: string, body?: unknown) => {
  const r = await w.as(method, path, body);
  assert.ok(r.status < 300, `${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};
/** A new bot, with the list read (and so kept) after it; the clock moves so `updatedAt` can change. */
const fresh = async (name: string) => {
  const bot = await ok('POST', '/api/v1/bots', { name });
  assert.ok((await list()).some((b) => b.id === bot.id), 'listed');
  await w.clock.advance(10);
  return bot;
};

test('a new bot is on the next list', async () => {
  await list();
  const bot = await ok('POST', '/api/v1/bots', { name: 'Created' });
  assert.is((await one(bot.id))?.name, 'Created');
});

test('a draft save shows its revision and time; a rename its name', async () => {
  const bot = await fresh('Drafted');
  const saved = await ok('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { identity: { agentName: 'Ada' } } });
  const shown = await one(bot.id);
  assert.is(shown?.revision, bot.revision + 1);
  assert.is(shown?.updatedAt, w.clock.now());
  assert.is(shown?.updatedAt, saved.updatedAt);
  await ok('PATCH', `/api/v1/bots/${bot.id}`, { revision: saved.revision, name: 'Renamed' });
  assert.is((await one(bot.id))?.name, 'Renamed');
});

test('publishing shows the published version', async () => {
  const bot = await fresh('Published');
  assert.is((await one(bot.id))?.publishedVersion, null);
  await ok('POST', `/api/v1/bots/${bot.id}/publish`, {});
  assert.is((await one(bot.id))?.publishedVersion, 1);
});

test('pausing and resuming show the status', async () => {
  const bot = await fresh('Paused');
  await ok('POST', `/api/v1/bots/${bot.id}/status`, { status: 'paused' });
  assert.is((await one(bot.id))?.status, 'paused');
  await ok('POST', `/api/v1/bots/${bot.id}/status`, { status: 'running' });
  assert.is((await one(bot.id))?.status, 'running');
});

test('a deleted bot is gone from the next list', async () => {
  const bot = await fresh('Deleted');
  await ok('DELETE', `/api/v1/bots/${bot.id}`);
  assert.is(await one(bot.id), undefined);
});

test('restoring a version shows the new revision', async () => {
  const bot = await fresh('Restored');
  await ok('POST', `/api/v1/bots/${bot.id}/publish`, {});
  await list();
  const restored = await ok('POST', `/api/v1/bots/${bot.id}/versions/1/restore`, {});
  assert.is((await one(bot.id))?.revision, restored.revision);
});

test('a duplicate is on the next list', async () => {
  const bot = await fresh('Original');
  const copy = await ok('POST', `/api/v1/bots/${bot.id}/duplicate`, {});
  assert.is((await one(copy.id))?.name, 'Original (copy)');
});

test('a new identity secret shows as a change of the bot', async () => {
  const bot = await fresh('Secret');
  await ok('POST', `/api/v1/bots/${bot.id}/identity-secret`);
  assert.is((await one(bot.id))?.updatedAt, w.clock.now());
});

test('pages from the kept list match the store: newest first, limit and before', async () => {
  const all = await list(w.owner.headers, '?limit=200');
  const r1 = await w.as('GET', '/api/v1/bots?limit=2');
  assert.equal(r1.body.items.map((b: Item) => b.id), all.slice(0, 2).map((b) => b.id));
  assert.is(r1.body.nextBefore, all[1].id);
  const r2 = await w.as('GET', `/api/v1/bots?limit=3&before=${encodeURIComponent(r1.body.nextBefore)}`);
  assert.equal(r2.body.items.map((b: Item) => b.id), all.slice(2, 5).map((b) => b.id));
  const last = await w.as('GET', `/api/v1/bots?before=${encodeURIComponent(all[all.length - 2].id)}`);
  assert.equal(last.body, { items: [all[all.length - 1]], nextBefore: null });
  const ids = all.map((b) => b.id);
  assert.equal(ids, [...ids].sort().reverse(), 'newest first');
});

test('a change made to the store behind the server shows within the list lifetime, without a request waiting for it', async () => {
  const bot = await fresh('Behind');
  const raw = w.server.app.store.collection<any>('bots');
  await raw.updateOne({ workspaceId: w.owner.workspaceId, _id: bot.id }, { $set: { name: 'Edited by hand' } });
  assert.is((await one(bot.id))?.name, 'Behind', 'kept: the store was not read');
  await w.clock.advance(LIST_TTL_MS);
  assert.is((await one(bot.id))?.name, 'Behind', 'lapsed: answered at once while it is read again');
  let name: string | undefined;
  for (let i = 0; i < 50 && name !== 'Edited by hand'; i++) name = (await one(bot.id))?.name;
  assert.is(name, 'Edited by hand');
});

/** A raw GET, so the test sees the bytes as sent (fetch would undo the encoding). */
function raw(path: string, headers: Record<string, string>): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(`${w.server.url}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
    }).on('error', reject).end();
  });
}

test('a kept list is sent compressed as the client accepts, like any JSON answer', async () => {
  const plain = await raw('/api/v1/bots', { cookie: w.owner.cookie });
  assert.ok(plain.body.length > 1024, `${plain.body.length} bytes: above the compression threshold`);
  assert.match(String(plain.headers['content-type']), 'application/json');
  for (const enc of ['br', 'br', 'gzip']) {
    const r = await raw('/api/v1/bots', { cookie: w.owner.cookie, 'accept-encoding': enc });
    assert.is(r.headers['content-encoding'], enc);
    assert.equal(enc === 'br' ? brotliDecompressSync(r.body) : gunzipSync(r.body), plain.body);
  }
});

test('scopes and roles: every reader sees the same list, others are refused even with the list kept', async () => {
  const viewer: TestSession = await addMember(w.server, w.owner, 'viewer');
  const reader = await createToken(w.server, w.owner, ['bots:read']);
  const other = await createToken(w.server, w.owner, ['conversations:read']);
  const owners = await list();
  assert.equal(await list(viewer.headers), owners);
  assert.equal(await list(reader.headers), owners);
  const refused = await w.server.request('GET', '/api/v1/bots', { headers: other.headers });
  assert.is(refused.status, 403);
  assert.match(refused.body.error.message, 'bots:read');
  assert.is((await w.server.request('GET', '/api/v1/bots')).status, 401);
});

test('a revoked token is refused on its next request, the list kept or not', async () => {
  const token = await createToken(w.server, w.owner, ['bots:read']);
  await list(token.headers);
  await ok('DELETE', `/api/v1/tokens/${token.id}`);
  const r = await w.server.request('GET', '/api/v1/bots', { headers: token.headers });
  assert.is(r.status, 401);
});

test('a workspace with more bots than are kept is listed from the store, page by page', async () => {
  const before = await list(w.owner.headers, '?limit=200');
  const now = w.clock.now();
  const many = Array.from({ length: MAX_KEPT_BOTS }, (_, i): BotRecord => ({
    _id: `bot_zz${String(i).padStart(5, '0')}`, workspaceId: w.owner.workspaceId, name: `Bulk ${i}`, status: 'running',
    draft: {} as BotRecord['draft'], revision: 1, published: null, createdAt: now, updatedAt: now,
  }));
  await w.server.app.records.bots.insertMany(many);
  const first = await w.as('GET', '/api/v1/bots');
  assert.is(first.body.items.length, 50);
  assert.is(first.body.items[0].name, `Bulk ${MAX_KEPT_BOTS - 1}`);
  assert.is(first.body.nextBefore, first.body.items[49].id);
  const unread = () => Promise.reject(new Error('the list is not read again while kept'));
  assert.is(botLists(w.server.app).page(w.owner.workspaceId, unread), null, 'kept as too long: pages come from the store');
  const tail = await w.as('GET', `/api/v1/bots?limit=200&before=bot_zz00000`);
  assert.equal(tail.body, { items: before, nextBefore: null });
  await w.server.app.records.bots.deleteMany({ workspaceId: w.owner.workspaceId, _id: { $in: many.map((b) => b._id) } });
  assert.equal(await list(w.owner.headers, '?limit=200'), before, 'kept again once it is small');
});

test('deleting the workspace forgets its list', async () => {
  await list();
  const lists = botLists(w.server.app);
  assert.ok(lists.keeps(w.owner.workspaceId));
  const r = await w.server.request('DELETE', '/api/v1/workspace', { headers: w.owner.headers });
  assert.ok(r.status < 300, JSON.stringify(r.body));
  assert.not.ok(lists.keeps(w.owner.workspaceId));
});

test.run();
