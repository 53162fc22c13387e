import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { FakeClock } from '../../src/kernel/clock.js';
import { recordGap } from '../../src/knowledge/gaps.js';
import { RETENTION_SCHEDULE, runRetention } from '../../src/retention/job.js';
import { requestHandoff } from '../../src/team/handoff.js';
import { createToken, loginAs, type TestToken } from '../helpers/auth.js';
import { startTestServer } from '../helpers/server.js';
import { startTeamWorld, type FrameClient, type TeamWorld } from '../team/helpers.js';

const DAY = 86_400_000;
const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
let w: TeamWorld;
let reader: TestToken;

test.before(async () => {
  w = await startTeamWorld({ behavior: { leadCapture: { enabled: true }, handoff: { enabled: true, offlineAction: 'message' } } }, { clock });
  reader = await createToken(w.server, w.owner, ['analytics:read', 'conversations:read', 'conversations:write']);
});
test.after(async () => { await w.stop(); });

const ws = () => w.owner.workspaceId;
const as = (method: string, path: string, body?: unknown) => w.server.request(method, path, { body, headers: reader.headers });
/** Settings take a person's session; sessions end while the clock jumps weeks, so sign in afresh. */
const setRetention = async (days: number | null) => {
  const owner = await loginAs(w.server, w.owner.email);
  const r = await w.server.request('PATCH', '/api/v1/settings', { body: { conversationRetentionDays: days }, headers: owner.headers });
  assert.is(r.status, 200, JSON.stringify(r.body));
};
const read = async (path: string) => {
  const r = await w.server.request('GET', path, { headers: reader.headers });
  if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const png = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } }).png().toBuffer();

async function upload(visitorToken: string): Promise<string> {
  const r = await w.server.fetch(`/widget/v1/uploads?botId=${w.botId}&visitorToken=${encodeURIComponent(visitorToken)}`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: await png() });
  assert.is(r.status, 201);
  return ((await r.json()) as { id: string }).id;
}

/** A visitor who sends `text` (with an image) and gets an answer; the socket stays open. */
async function talk(text: string, opts: { image?: boolean; visitor?: FrameClient } = {}) {
  const visitor = opts.visitor ?? await w.widget();
  const ready = opts.visitor ? null : await visitor.frame('ready');
  const attachments = opts.image && ready ? [await upload(ready.visitorToken)] : [];
  visitor.send({ t: 'message', text, attachments });
  const conv = opts.visitor ? null : await visitor.frame('conversation');
  const answer = await visitor.frame('message', (f) => f.message.role === 'assistant');
  return { visitor, ready, conversationId: (conv?.conversationId ?? answer.conversationId) as string, answer, attachments };
}

const analytics = async () => ({
  summary: await read('/api/v1/analytics/summary?from=2026-01-01&to=2026-12-31'),
  tools: await read('/api/v1/analytics/tools?from=2026-01-01&to=2026-12-31'),
  usage: await read('/api/v1/analytics/usage?from=2026-01-01&to=2026-12-31'),
});

let old: Awaited<ReturnType<typeof talk>>;
let unclaimed: string;

test('with no retention set, nothing is ever deleted for age', async () => {
  w.fake.script([{ toolCalls: [{ name: 'capture_lead', arguments: { name: 'Olga', email: 'olga@example.com' } }] }, { text: 'Saved, Olga.' }]);
  old = await talk('my name is Olga, olga@example.com, here is a photo', { image: true });
  old.visitor.send({ t: 'feedback', messageId: old.answer.message.id, value: 1 });
  await old.visitor.frame('feedback_ok');
  unclaimed = await upload(old.ready!.visitorToken);
  const handoff = await requestHandoff(w.server.app, w.server.services, { conversationId: old.conversationId, reason: null, source: 'visitor' });
  assert.ok(handoff.ok);
  await recordGap(w.server.app, ws(), 'Do you repair vintage radios?', { botId: w.botId, conversationId: old.conversationId, visitorId: old.ready!.visitorId });
  await old.visitor.close();

  await clock.advance(200 * DAY);
  assert.equal(await runRetention(w.server.app, w.server.services.conversations), { workspaces: 0, conversations: 0, messages: 0, attachments: 0 });
  assert.is((await read(`/api/v1/conversations/${old.conversationId}`)).id, old.conversationId);
});

test('a conversation past the retention goes with its messages, tool calls, images, feedback, handoffs, gap questions and events; counts stay', async () => {
  await setRetention(30);
  // A visitor who keeps the chat open and writes again 25 days later: the last message decides, not the start.
  const loyal = await talk('hello, first visit');
  await clock.advance(25 * DAY);
  await talk('hello again, same chat', { visitor: loyal.visitor });
  await clock.advance(10 * DAY);
  const recent = await talk('a fresh question');
  await recent.visitor.close();
  await loyal.visitor.close();

  // An actor still in memory for the expired conversation: closing it through the API loads it.
  assert.is((await as('POST', `/api/v1/conversations/${old.conversationId}/close`)).status, 200);
  const actor = w.server.services.conversations.registry.peek(old.conversationId);
  assert.is(actor?.status, 'running', 'the expired conversation has an actor in memory');
  const before = await analytics();
  assert.equal([before.summary.conversations, before.summary.leads, before.tools.items.length], [3, 1, 1]);
  const db = w.server.app.records;
  const messagesBefore = await db.messages.count({ workspaceId: ws(), conversationId: old.conversationId });

  const run = await runRetention(w.server.app, w.server.services.conversations);
  assert.equal(run, { workspaces: 1, conversations: 1, messages: messagesBefore, attachments: 2 });
  assert.is(actor!.status, 'stopped', 'its actor was stopped first');

  assert.is((await w.server.request('GET', `/api/v1/conversations/${old.conversationId}`, { headers: reader.headers })).status, 404);
  const listed = (await read('/api/v1/conversations')).items.map((c: { id: string }) => c.id).sort();
  assert.equal(listed, [loyal.conversationId, recent.conversationId].sort(), 'the conversation written to 10 days ago stays');
  for (const id of [...old.attachments, unclaimed]) {
    assert.is((await as('GET', `/api/v1/attachments/${id}`)).status, 404);
    assert.is(await w.server.app.store.files.get(ws(), id), null, 'the image file is gone');
  }
  const of = { workspaceId: ws(), conversationId: old.conversationId };
  assert.equal([await db.messages.count(of), await db.toolCalls.count(of), await db.feedback.count(of), await w.server.app.records.handoffs.count(of)], [0, 0, 0, 0]);
  assert.is(await w.server.app.events.collection.count({ workspaceId: ws(), 'data.conversationId': old.conversationId }), 0);
  const gaps = (await as('GET', '/api/v1/knowledge/gaps')).body.items.map((g: { question: string }) => g.question);
  assert.not.ok(gaps.includes('Do you repair vintage radios?'));
  assert.equal((await w.server.app.records.leads.find({ workspaceId: ws() })).map((l) => l.fields.email), ['olga@example.com'], 'the lead is a record of its own and stays');
  assert.equal(await analytics(), before, 'analytics counts do not change');

  assert.equal(await runRetention(w.server.app, w.server.services.conversations), { workspaces: 0, conversations: 0, messages: 0, attachments: 0 }, 'a second run finds nothing');
});

test('the sweep runs hourly on node-cron, runs the same deletion when fired, and stops with the server', async () => {
  const job = w.server.services.retention;
  assert.is(job.task.getPattern(), RETENTION_SCHEDULE);
  assert.is(job.task.getStatus(), 'idle');
  assert.ok(job.task.msToNext()! <= 3600_000);
  const listed = (await read('/api/v1/conversations')).items.length;
  await clock.advance(31 * DAY);
  await job.task.execute();
  assert.is((await read('/api/v1/conversations')).items.length, 0, `the ${listed} conversations past 30 days went`);

  const other = await startTestServer();
  const task = other.services.retention.task;
  await other.stop();
  assert.is(task.getStatus(), 'destroyed');
});

test.run();
