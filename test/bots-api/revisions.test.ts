import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorld, type World } from './setup.js';

let w: World;
test.before(async () => {
  w = await startWorld();
  await w.connectOpenAI();
});
test.after(async () => { await w.close(); });

const create = async (name: string) => {
  const r = await w.as('POST', '/api/v1/bots', { name });
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body;
};

test('a name-only edit needs the current revision and moves it on like any other edit', async () => {
  const bot = await create('Named');
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, name: 'Renamed' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.name, 'Renamed');
  assert.is(r.body.revision, bot.revision + 1);
  assert.equal(r.body.draft, bot.draft);

  const stale = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, name: 'Lost' });
  assert.is(stale.status, 409);
  assert.is(stale.body.error.code, 'conflict');
  assert.is(stale.body.error.details.revision, bot.revision + 1);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.name, 'Renamed');
});

test('a name sent with a patch is one edit: both change and the revision goes up once', async () => {
  const bot = await create('Both');
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, name: 'Both renamed', patch: { identity: { agentName: 'Zed' } } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.name, 'Both renamed');
  assert.is(r.body.draft.identity.agentName, 'Zed');
  assert.is(r.body.revision, bot.revision + 1);
});

test('of concurrent renames from the same revision exactly one wins', async () => {
  const bot = await create('Raced');
  const results = await Promise.all(['A', 'B', 'C'].map((name) => w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, name })));
  assert.equal(results.map((r) => r.status).sort(), [200, 409, 409]);
});

test('a duplicate of a paused bot starts running, like any new bot', async () => {
  const bot = await create('Sleeper');
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/status`, { status: 'paused' })).body.status, 'paused');
  const copy = await w.as('POST', `/api/v1/bots/${bot.id}/duplicate`, {});
  assert.is(copy.status, 201);
  assert.is(copy.body.status, 'running');
  assert.is(copy.body.revision, 1);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.status, 'paused');
});

test('concurrent publishes never share a version number: each succeeds with its own or gets 409', async () => {
  const bot = await create('Racer');
  const results = await Promise.all(Array.from({ length: 4 }, () => w.as('POST', `/api/v1/bots/${bot.id}/publish`, {})));
  for (const r of results) assert.ok(r.status === 200 || r.status === 409, `${r.status} ${JSON.stringify(r.body)}`);
  const won = results.filter((r) => r.status === 200).map((r) => r.body.published.version);
  assert.ok(won.length >= 1);
  assert.is(new Set(won).size, won.length, `versions handed out twice: ${won}`);
  const versions = (await w.as('GET', `/api/v1/bots/${bot.id}/versions`)).body.items.map((v: any) => v.version);
  assert.is(new Set(versions).size, versions.length);
  assert.is(versions.length, won.length);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.published.version, Math.max(...versions));
});

test('a face in the published version cannot be deleted even after the draft moves to another face', async () => {
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 150, b: 120 } } }).png().toBuffer();
  const landmarks = Array.from({ length: 468 }, (_, i) => [(i % 26) / 26, Math.floor(i / 26) / 18, 0]);
  const face = await w.as('POST', '/api/v1/faces', { name: 'Me', image: png.toString('base64'), landmarks });
  assert.is(face.status, 201, JSON.stringify(face.body));
  let bot = await create('Faced');
  bot = (await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { face: { skin: { kind: 'custom', assetId: face.body.id } } } })).body;
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/publish`, {})).status, 200);
  bot = (await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { face: { skin: null } } })).body;
  assert.is(bot.draft.face.skin, null);

  const refused = await w.as('DELETE', `/api/v1/faces/${face.body.id}`);
  assert.is(refused.status, 409);
  assert.match(refused.body.error.message, /Faced/);

  // Once the published version no longer shows it, the face may go (docs/bots.md, Custom faces).
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/publish`, {})).status, 200);
  assert.is((await w.as('DELETE', `/api/v1/faces/${face.body.id}`)).status, 204);
});

test.run();
