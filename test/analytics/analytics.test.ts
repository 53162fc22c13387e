import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { requestHandoff } from '../../src/team/handoff.js';
import { createToken, type TestToken } from '../helpers/auth.js';
import { chattingVisitor, startTeamWorld, type TeamWorld } from '../team/helpers.js';

const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
const DAY = 86_400_000;
let w: TeamWorld;
let token: TestToken;
const get = async (path: string) => {
  const r = await w.server.request('GET', path, { headers: token.headers });
  if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

test.before(async () => {
  w = await startTeamWorld({ behavior: { leadCapture: { enabled: true }, handoff: { enabled: true, offlineAction: 'message' } } }, { clock });
  token = await createToken(w.server, w.owner, ['analytics:read']);
});
test.after(async () => { await w.stop(); });

test('analytics figures match a scripted day of activity exactly', async () => {
  // Day 1: a conversation where the agent saves a lead, and the visitor gives a thumbs up.
  w.fake.script([{ toolCalls: [{ name: 'capture_lead', arguments: { name: 'Ann', email: 'ann@example.com' } }] }, { text: 'Saved, thanks!' }]);
  const a = await chattingVisitor(w, 'hi, I am Ann, ann@example.com');
  const reply = a.visitor.frames.find((f) => f.t === 'message' && f.message.role === 'assistant')!;
  a.visitor.send({ t: 'feedback', messageId: reply.message.id, value: 1 });
  await a.visitor.frame('feedback_ok');
  await a.visitor.close();

  // Day 2: a failed tool call, a takeover with one team reply, a handoff nobody can take, one more AI reply.
  await clock.advance(DAY);
  w.fake.script([{ toolCalls: [{ name: 'capture_lead', arguments: { name: 'Bob', email: 'nope' } }] }, { text: 'Could you check your e-mail?' }]);
  const b = await chattingVisitor(w, 'hello');
  const h = w.agent.headers;
  await w.server.request('POST', `/api/v1/conversations/${b.conversationId}/takeover`, { headers: h });
  await w.server.request('POST', `/api/v1/conversations/${b.conversationId}/messages`, { body: { text: 'Hi from the team' }, headers: h });
  await w.server.request('POST', `/api/v1/conversations/${b.conversationId}/messages`, { body: { text: 'note to self', internal: true }, headers: h });
  await w.server.request('POST', `/api/v1/conversations/${b.conversationId}/release`, { headers: h });
  const handoff = await requestHandoff(w.server.app, w.server.services, { conversationId: b.conversationId, reason: null, source: 'visitor' });
  assert.ok(handoff.ok && !handoff.available);
  b.visitor.send({ t: 'message', text: 'ok' });
  await b.visitor.frame('message', (f) => f.message.role === 'assistant' && f.message.text === 'You said: ok');
  await b.visitor.close();
  // A lead added by hand: a lead, but no conversation's outcome.
  const added = await w.server.request('POST', '/api/v1/leads', { body: { botId: w.botId, fields: { name: 'Cat', email: 'cat@example.com' } }, headers: w.owner.headers });
  assert.is(added.status, 201, JSON.stringify(added.body));

  // What the store holds is the truth the figures must match.
  const ws = w.owner.workspaceId;
  const replies = await w.server.app.records.messages.find({ workspaceId: ws, role: 'assistant' });
  const calls = await w.server.app.records.toolCalls.find({ workspaceId: ws });
  const tokensIn = replies.reduce((s, m) => s + (m.usage?.inputTokens ?? 0), 0);
  const tokensOut = replies.reduce((s, m) => s + (m.usage?.outputTokens ?? 0), 0);
  const cost = replies.reduce((s, m) => s + (m.costUsd ?? 0), 0);
  assert.is(replies.length, 3);
  assert.ok(tokensIn > 0 && tokensOut > 0);
  assert.is(tokensIn + tokensOut, w.fake.usages.reduce((s, u) => s + u.inputTokens + u.outputTokens, 0), 'every model call is counted');

  const s = await get('/api/v1/analytics/summary');
  assert.is(s.from, '2025-12-04');
  assert.is(s.to, '2026-01-02');
  assert.is(s.conversations, 2);
  assert.equal(s.messages, { visitor: 3, agent: 3, team: 1, system: 3 });
  assert.is(s.leads, 2);
  assert.is(s.leadsInConversations, 1, 'the lead added by hand is not counted against conversations');
  // B was taken over without a request: taken over, though no handoff was accepted.
  assert.equal(s.handoffs, { requested: 1, accepted: 0, resolved: 0, takenOver: 1 });
  assert.equal(s.feedback, { thumbsUp: 1, thumbsDown: 0, csatCount: 0, csatAverage: null });
  assert.equal(s.tools, { calls: 2, errors: 1 });
  assert.equal(s.tokens, { input: tokensIn, output: tokensOut });
  assert.is(s.costUsd, Math.round(cost * 1e6) / 1e6);

  const day1 = await get('/api/v1/analytics/summary?from=2026-01-01&to=2026-01-01');
  assert.equal([day1.conversations, day1.messages.visitor, day1.messages.agent, day1.leads, day1.tools.errors], [1, 1, 1, 1, 0]);
  const last = await get('/api/v1/analytics/summary?days=1');
  assert.equal([last.from, last.conversations, last.messages.visitor, last.messages.team, last.handoffs.requested], ['2026-01-02', 1, 2, 1, 1]);
  const otherBot = await get('/api/v1/analytics/summary?botId=bot_other');
  assert.is(otherBot.conversations, 0);

  const series = await get('/api/v1/analytics/timeseries?from=2025-12-31&to=2026-01-02');
  assert.equal(series.items.map((d: { day: string }) => d.day), ['2025-12-31', '2026-01-01', '2026-01-02']);
  assert.equal(series.items.map((d: { conversations: number }) => d.conversations), [0, 1, 1]);
  assert.equal(series.items.map((d: { messages: { agent: number } }) => d.messages.agent), [0, 1, 2]);
  assert.equal(series.items.map((d: { feedback: { thumbsUp: number } }) => d.feedback.thumbsUp), [0, 1, 0]);

  const tools = await get('/api/v1/analytics/tools');
  const durations = calls.map((c) => c.durationMs).sort((x, y) => x - y);
  assert.equal(tools.items, [{
    name: 'capture_lead', calls: 2, errors: 1, errorRate: 0.5,
    avgDurationMs: Math.round((durations[0] + durations[1]) / 2), p95DurationMs: durations[1],
  }]);

  const usage = await get('/api/v1/analytics/usage');
  assert.equal(usage.items.map((m: { model: string; replies: number }) => [m.model, m.replies]), [['gpt-4o-mini', 3]]);
  assert.equal(usage.total, { replies: 3, inputTokens: tokensIn, outputTokens: tokensOut, costUsd: Math.round(cost * 1e6) / 1e6 });
});

test('a bad period is refused with the field named', async () => {
  const r = await w.server.request('GET', '/api/v1/analytics/summary?from=2026-02-30', { headers: token.headers });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /from/);
  const both = await w.server.request('GET', '/api/v1/analytics/summary?days=3&from=2026-01-01', { headers: token.headers });
  assert.is(both.status, 422);
  const long = await w.server.request('GET', '/api/v1/analytics/timeseries?from=2020-01-01&to=2026-01-01', { headers: token.headers });
  assert.is(long.status, 422);
});

test.run();
