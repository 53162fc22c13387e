import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorld, type World } from '../bots-api/setup.js';

let w: World;
let openai: any;
let speech: any;
test.before(async () => {
  w = await startWorld();
  openai = await w.connectOpenAI();
  speech = await w.connectSpeech();
});
test.after(async () => { await w.close(); });

const modelCalls = () => w.openai.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models').length;

test('models come from the provider with a recommended one', async () => {
  const r = await w.as('GET', `/api/v1/providers/${openai.id}/models`);
  assert.is(r.status, 200);
  const ids = r.body.items.map((m: any) => m.id);
  assert.ok(ids.includes('gpt-4o-mini'));
  assert.type(r.body.recommended, 'string');
  assert.ok(ids.includes(r.body.recommended));
  assert.is(r.body.cachedAt, w.clock.now());
});

test('models are cached for a day and refresh=1 asks again', async () => {
  const before = modelCalls();
  await w.as('GET', `/api/v1/providers/${openai.id}/models`);
  assert.is(modelCalls(), before, 'second read comes from the cache');
  await w.as('GET', `/api/v1/providers/${openai.id}/models?refresh=1`);
  assert.is(modelCalls(), before + 1, 'refresh asks the provider');
  await w.clock.advance(23 * 3600_000);
  await w.as('GET', `/api/v1/providers/${openai.id}/models`);
  assert.is(modelCalls(), before + 1, 'still cached within the day');
  await w.clock.advance(2 * 3600_000);
  const r = await w.as('GET', `/api/v1/providers/${openai.id}/models`);
  assert.is(modelCalls(), before + 2, 'asked again after a day');
  assert.is(r.body.cachedAt, w.clock.now());
});

test('voices carry preview URLs pointing at this server', async () => {
  const r = await w.as('GET', `/api/v1/providers/${speech.id}/voices`);
  assert.is(r.status, 200);
  assert.ok(r.body.items.length >= 2);
  for (const v of r.body.items) {
    assert.ok(v.previewUrl.endsWith(`/api/v1/providers/${speech.id}/voices/${v.id}/preview`), v.previewUrl);
  }
});

test('a voice preview is short audio with its content type', async () => {
  const res = await w.server.fetch(`/api/v1/providers/${speech.id}/voices/voice_rachel/preview`, { headers: w.owner.headers });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'audio/mpeg');
  const audio = Buffer.from(await res.arrayBuffer());
  assert.ok(audio.length > 0);
});

test('OpenAI voices can be previewed too (synthesised)', async () => {
  const list = await w.as('GET', `/api/v1/providers/${openai.id}/voices`);
  assert.is(list.status, 200);
  const res = await w.server.fetch(`/api/v1/providers/${openai.id}/voices/${list.body.items[0].id}/preview`, { headers: w.owner.headers });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^audio\//);
});

test('deleting a connection a bot uses is refused with 409 naming the bot', async () => {
  const bot = (await w.as('POST', '/api/v1/bots', { name: 'Uses OpenAI' })).body;
  assert.is(bot.draft.brain.connectionId, openai.id);
  const r = await w.as('DELETE', `/api/v1/providers/${openai.id}`);
  assert.is(r.status, 409);
  assert.is(r.body.error.code, 'conflict');
  assert.equal(r.body.error.details.bots, [{ id: bot.id, name: 'Uses OpenAI' }]);
  // Once the bot no longer names it, the connection can go.
  const p = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { brain: { connectionId: null } } });
  assert.is(p.status, 200);
  assert.is((await w.as('DELETE', `/api/v1/providers/${openai.id}`)).status, 204);
  assert.is((await w.as('GET', '/api/v1/providers')).body.items.length, 1);
});

test('a connection named only by a published config is also kept', async () => {
  const again = await w.connectOpenAI('Again');
  const bot = (await w.as('POST', '/api/v1/bots', { name: 'Published one' })).body;
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/publish`)).status, 200);
  const p = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { brain: { connectionId: null } } });
  assert.is(p.status, 200);
  const r = await w.as('DELETE', `/api/v1/providers/${again.id}`);
  assert.is(r.status, 409);
});

test.run();
