import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorld, type World } from './setup.js';

let w: World;
let conn: any;
test.before(async () => { w = await startWorld(); });
test.after(async () => { await w.close(); });

const create = async (body: unknown) => {
  const r = await w.as('POST', '/api/v1/bots', body);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body;
};

test('templates are offered as starting points', async () => {
  const r = await w.as('GET', '/api/v1/bots/templates');
  assert.is(r.status, 200);
  const ids = r.body.items.map((t: any) => t.id);
  assert.ok(ids.includes('blank') && ids.includes('customer-support'));
});

test('a bot made before any provider is connected has no brain yet', async () => {
  const bot = await create({ name: 'Early' });
  assert.is(bot.draft.brain.connectionId, null);
  assert.is(bot.draft.brain.model, '');
});

test('a new bot is a complete draft using the first connected brain and its recommended model', async () => {
  conn = await w.connectOpenAI('First');
  await w.connectOpenAI('Second');
  const models = (await w.as('GET', `/api/v1/providers/${conn.id}/models`)).body;
  const bot = await create({ name: 'Ava bot' });
  assert.is(bot.status, 'running');
  assert.is(bot.revision, 1);
  assert.is(bot.published, null);
  assert.equal(bot.versions, []);
  assert.is(bot.draft.schemaVersion, 1);
  assert.is(bot.draft.identity.agentName, 'Ava');
  assert.is(bot.draft.brain.connectionId, conn.id);
  assert.is(bot.draft.brain.model, models.recommended);
});

test('a template fills the draft and an unknown template is refused', async () => {
  const bot = await create({ name: 'Support', templateId: 'customer-support' });
  assert.is(bot.draft.identity.role, 'Support assistant');
  assert.is(bot.draft.behavior.handoff.enabled, true);
  const r = await w.as('POST', '/api/v1/bots', { name: 'x', templateId: 'nope' });
  assert.is(r.status, 400);
  assert.match(r.body.error.message, /templateId/);
});

test('a patch deep-merges, arrays and null replace, and the revision goes up', async () => {
  const bot = await create({ name: 'Merge' });
  const r1 = await w.as('PATCH', `/api/v1/bots/${bot.id}`, {
    revision: bot.revision,
    patch: { identity: { agentName: 'Max' }, welcome: { suggestedPrompts: ['a', 'b', 'c'] }, brain: { temperature: 0.5 } },
  });
  assert.is(r1.status, 200);
  assert.is(r1.body.revision, bot.revision + 1);
  assert.is(r1.body.draft.identity.agentName, 'Max');
  assert.is(r1.body.draft.identity.role, 'Virtual assistant', 'siblings are kept');
  const r2 = await w.as('PATCH', `/api/v1/bots/${bot.id}`, {
    revision: r1.body.revision, patch: { welcome: { suggestedPrompts: ['z'] }, brain: { temperature: null } },
  });
  assert.is(r2.status, 200);
  assert.equal(r2.body.draft.welcome.suggestedPrompts, ['z']);
  assert.is(r2.body.draft.brain.temperature, null);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.revision, bot.revision + 2);
});

test('a whole config replaces the draft, with defaults for what it leaves out', async () => {
  const bot = await create({ name: 'Whole' });
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, config: { identity: { agentName: 'Zed' } } });
  assert.is(r.status, 200);
  assert.is(r.body.draft.identity.agentName, 'Zed');
  assert.is(r.body.draft.brain.connectionId, null, 'the brain is back to its default');
});

test('a stale revision gives 409 conflict with the current revision', async () => {
  const bot = await create({ name: 'Stale' });
  await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { identity: { agentName: 'One' } } });
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { identity: { agentName: 'Two' } } });
  assert.is(r.status, 409);
  assert.is(r.body.error.code, 'conflict');
  assert.is(r.body.error.details.revision, bot.revision + 1);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.draft.identity.agentName, 'One');
});

test('of concurrent edits made from the same revision exactly one wins', async () => {
  const bot = await create({ name: 'Race' });
  const names = Array.from({ length: 8 }, (_, i) => `Editor ${i}`);
  const results = await Promise.all(names.map((n) =>
    w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { identity: { agentName: n } } })));
  const won = results.filter((r) => r.status === 200);
  assert.is(won.length, 1);
  assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 409));
  const after = (await w.as('GET', `/api/v1/bots/${bot.id}`)).body;
  assert.is(after.revision, bot.revision + 1);
  assert.is(after.draft.identity.agentName, won[0].body.draft.identity.agentName);
});

test('the revision check and the write are one atomic step, even when both edits passed the first read', async () => {
  const { editDraft } = await import('../../src/bots/service.js');
  const bot = await create({ name: 'Atomic' });
  const results = await Promise.allSettled(['A', 'B', 'C'].map((n) =>
    editDraft(w.server.app, w.owner.workspaceId, bot.id, { revision: bot.revision, patch: { identity: { agentName: n } } })));
  assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  for (const r of results) if (r.status === 'rejected') assert.is((r.reason as { status: number }).status, 409);
});

test('validation errors name the field path and change nothing', async () => {
  const bot = await create({ name: 'Invalid' });
  const r = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { appearance: { theme: { accent: 'red' } } } });
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'invalid');
  assert.match(r.body.error.message, /^appearance\.theme\.accent: /);
  const typo = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { identity: { agentNmae: 'x' } } });
  assert.is(typo.status, 422);
  assert.match(typo.body.error.message, /identity\.agentNmae/);
  const noRevision = await w.as('PATCH', `/api/v1/bots/${bot.id}`, { patch: {} });
  assert.is(noRevision.status, 422);
  assert.match(noRevision.body.error.message, /revision/);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.revision, bot.revision);
});

test('bots are listed newest first with paging', async () => {
  const all = await w.as('GET', '/api/v1/bots');
  assert.is(all.status, 200);
  assert.ok(all.body.items.length >= 5);
  assert.is(all.body.nextBefore, null);
  const ids = all.body.items.map((b: any) => b.id);
  assert.equal(ids, [...ids].sort().reverse());
  const page1 = await w.as('GET', '/api/v1/bots?limit=2');
  assert.is(page1.body.items.length, 2);
  const page2 = await w.as('GET', `/api/v1/bots?limit=2&before=${page1.body.nextBefore}`);
  assert.equal(page2.body.items.map((b: any) => b.id), ids.slice(2, 4));
});

test('the list shows each bot as the bot itself reads: name, status, revision and its published version, or none', async () => {
  const published = await create({ name: 'Listed published' });
  await w.as('POST', `/api/v1/bots/${published.id}/publish`);
  await w.as('POST', `/api/v1/bots/${published.id}/status`, { status: 'paused' });
  const draftOnly = await create({ name: 'Listed draft' });
  const items = (await w.as('GET', '/api/v1/bots?limit=2')).body.items;
  for (const [listed, id] of [[items[1], published.id], [items[0], draftOnly.id]]) {
    const { draft: _d, published: _p, versions: _v, hasIdentitySecret: _h, ...summary } = (await w.as('GET', `/api/v1/bots/${id}`)).body;
    assert.equal(listed, summary);
  }
  assert.is(items[1].publishedVersion, 1);
  assert.is(items[1].status, 'paused');
  assert.is(items[0].publishedVersion, null);
  assert.is(items[0].publishedAt, null);
});

test('a bot can be duplicated: the draft is copied, not its versions', async () => {
  const bot = await create({ name: 'Original' });
  await w.as('POST', `/api/v1/bots/${bot.id}/publish`);
  const r = await w.as('POST', `/api/v1/bots/${bot.id}/duplicate`, {});
  assert.is(r.status, 201);
  assert.is.not(r.body.id, bot.id);
  assert.is(r.body.name, 'Original (copy)');
  assert.equal(r.body.draft, bot.draft);
  assert.is(r.body.published, null);
  assert.equal(r.body.versions, []);
});

test('a bot can be deleted with its versions', async () => {
  const bot = await create({ name: 'Doomed' });
  await w.as('POST', `/api/v1/bots/${bot.id}/publish`);
  assert.is((await w.as('DELETE', `/api/v1/bots/${bot.id}`)).status, 204);
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).status, 404);
  assert.is((await w.as('DELETE', `/api/v1/bots/${bot.id}`)).status, 404);
  const left = await w.server.app.store.collection('bot_versions').count({ workspaceId: w.owner.workspaceId, botId: bot.id });
  assert.is(left, 0);
});

test('pausing and resuming sets the status', async () => {
  const bot = await create({ name: 'Pausable' });
  const p = await w.as('POST', `/api/v1/bots/${bot.id}/status`, { status: 'paused' });
  assert.is(p.status, 200);
  assert.is(p.body.status, 'paused');
  assert.is((await w.as('GET', `/api/v1/bots/${bot.id}`)).body.status, 'paused');
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/status`, { status: 'running' })).body.status, 'running');
  assert.is((await w.as('POST', `/api/v1/bots/${bot.id}/status`, { status: 'sleeping' })).status, 422);
});

test.run();
