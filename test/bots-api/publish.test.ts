import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorld, type World } from './setup.js';

let w: World;
let conn: any;
let bot: any;
test.before(async () => { w = await startWorld(); });
test.after(async () => { await w.close(); });

const get = async () => (await w.as('GET', `/api/v1/bots/${bot.id}`)).body;
const patch = async (p: unknown) => {
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: (await get()).revision, patch: p });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body;
};
const publish = () => w.as('POST', `/api/v1/bots/${bot.id}/publish`);

test('publishing without a brain connection lists the problem', async () => {
  bot = (await w.as('POST', '/api/v1/bots', { name: 'Publisher' })).body;
  const r = await publish();
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'invalid');
  const paths = r.body.error.details.map((p: any) => p.path);
  assert.ok(paths.includes('brain.connectionId'), paths.join());
  assert.ok(paths.includes('brain.model'), paths.join());
});

test('every problem of the draft is listed at once', async () => {
  conn = await w.connectOpenAI();
  const speech = await w.connectSpeech();
  // Objects merge, so switching face.skin to another kind goes through null (arrays and null replace).
  await patch({ face: { skin: null } });
  await patch({
    brain: { connectionId: conn.id, model: '' },
    knowledge: { sourceIds: ['ks_missing'] },
    tools: { http: [{ toolId: 'tool_missing' }], mcp: [{ serverId: 'mcp_missing' }] },
    face: { skin: { kind: 'custom', assetId: 'face_missing' } },
    voice: { enabled: true, mode: 'cascade', cascade: { stt: { connectionId: speech.id }, tts: { connectionId: 'prv_gone' } } },
  });
  const r = await publish();
  assert.is(r.status, 422);
  const paths = r.body.error.details.map((p: any) => p.path).sort();
  assert.equal(paths, [
    'brain.model', 'face.skin.assetId', 'knowledge.sourceIds.0', 'tools.http.0.toolId', 'tools.mcp.0.serverId', 'voice.cascade.tts.connectionId',
  ]);
  assert.match(r.body.error.message, /knowledge\.sourceIds\.0: knowledge source ks_missing does not exist/);
  assert.is((await get()).published, null, 'nothing was published');
});

test('voice settings must match the kinds of their connections', async () => {
  const speech = (await w.as('GET', '/api/v1/providers')).body.items.find((p: any) => p.kind === 'speech');
  await patch({
    brain: { model: 'gpt-4o-mini' }, knowledge: { sourceIds: [] }, tools: { http: [], mcp: [] }, face: { skin: null },
    voice: { mode: 'realtime', realtime: { connectionId: speech.id } },
  });
  const r = await publish();
  assert.is(r.status, 422);
  assert.equal(r.body.error.details.map((p: any) => p.path), ['voice.realtime.connectionId']);
  assert.is(r.body.error.details[0].message, 'realtime voice needs an OpenAI or Google Gemini connection, and Voices is an ElevenLabs-compatible speech connection; choose another');
  await patch({ voice: { mode: 'hosted_agent', hostedAgent: { connectionId: conn.id } } });
  const paths = (await publish()).body.error.details.map((p: any) => p.path);
  assert.equal(paths, ['voice.hostedAgent.connectionId', 'voice.hostedAgent.voice']);
});

test('a realtime voice with no connection of its own uses an OpenAI brain', async () => {
  await patch({ voice: { mode: 'realtime', realtime: { connectionId: null } } });
  const r = await publish();
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.published.version, 1);
});

test('publishing freezes the draft as the next version and emits bot.published', async () => {
  await patch({ identity: { agentName: 'Second' } });
  const r = await publish();
  assert.is(r.status, 200);
  assert.is(r.body.published.version, 2);
  assert.is(r.body.published.config.identity.agentName, 'Second');
  assert.equal(r.body.versions.map((v: any) => v.version), [2, 1]);
  assert.is(r.body.versions[0].publishedBy.name, 'Olivia Owner');
  const events = await w.server.app.events.collection.find({ workspaceId: w.owner.workspaceId, type: 'bot.published' });
  assert.equal(events.map((e) => e.data.version).sort(), [1, 2]);
  assert.is(events[0].data.botId, bot.id);
});

test('editing the draft does not change the published config', async () => {
  await patch({ identity: { agentName: 'Draft only' } });
  const b = await get();
  assert.is(b.draft.identity.agentName, 'Draft only');
  assert.is(b.published.config.identity.agentName, 'Second');
  assert.is(b.published.version, 2);
});

test('versions are listed newest first with their configs', async () => {
  const r = await w.as('GET', `/api/v1/bots/${bot.id}/versions`);
  assert.is(r.status, 200);
  assert.equal(r.body.items.map((v: any) => v.version), [2, 1]);
  assert.is(r.body.items[0].config.identity.agentName, 'Second');
  assert.is(r.body.items[1].config.identity.agentName, 'Ava');
});

test('restoring a version copies it into the draft only', async () => {
  const before = await get();
  const r = await w.as('POST', `/api/v1/bots/${bot.id}/versions/1/restore`, {});
  assert.is(r.status, 200);
  assert.is(r.body.draft.identity.agentName, 'Ava');
  assert.is(r.body.revision, before.revision + 1);
  assert.is(r.body.published.version, 2, 'published unchanged');
  assert.is(r.body.published.config.identity.agentName, 'Second');
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/versions/9/restore`, {})).status, 404);
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/versions/x/restore`, {})).status, 400);
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/versions/1/restore`, { revision: before.revision })).status, 409);
});

test('publishing the restored draft makes version 3, not a reused number', async () => {
  const r = await publish();
  assert.is(r.body.published.version, 3);
  assert.is(r.body.published.config.identity.agentName, 'Ava');
});

test('publishing a draft that equals the published version is refused and makes no version', async () => {
  const r = await publish();
  assert.is(r.status, 409, JSON.stringify(r.body));
  assert.is(r.body.error.code, 'conflict');
  assert.match(r.body.error.message, /nothing to publish: the draft is the same as the published version 3/);
  const versions = (await w.as('GET', `/api/v1/bots/${bot.id}/versions`)).body.items.map((v: any) => v.version);
  assert.equal(versions, [3, 2, 1], 'no identical version 4');
  // Changing the draft back and forth still counts as nothing new; a real change publishes again.
  await patch({ identity: { agentName: 'Temporary' } });
  await patch({ identity: { agentName: 'Ava' } });
  assert.is((await publish()).status, 409);
  await patch({ identity: { agentName: 'Fourth' } });
  const ok = await publish();
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.published.version, 4);
});

test('a publish that names a stale revision gives 409', async () => {
  const r = await w.as('POST', `/api/v1/bots/${bot.id}/publish`, { revision: 0 });
  assert.is(r.status, 409);
});

test('a null brain publishes with the first connected text model', async () => {
  const other = (await w.as('POST', '/api/v1/bots', { name: 'Defaults' })).body;
  const p = await w.as('PATCH', `/api/v1/bots/${other.id}`, { revision: other.revision, patch: { brain: { connectionId: null } } });
  assert.is(p.status, 200);
  assert.is((await w.as('POST', `/api/v1/bots/${other.id}/publish`)).status, 200);
});

test.run();
