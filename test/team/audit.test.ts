import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { chattingVisitor, startTeamWorld, type TeamWorld } from './helpers.js';

/** What a person's actions leave in the audit log (GET /api/v1/audit, read by the owner). */
let w: TeamWorld;
let receiver: Receiver;
test.before(async () => { w = await startTeamWorld(); receiver = await startReceiver(); });
test.after(async () => { await w.stop(); await receiver.close(); });

interface Entry { action: string; actor: { kind: string; id: string; name: string }; target: { type: string; id: string } | null; detail?: Record<string, unknown> }
const auditSince = async (seen: number): Promise<Entry[]> => {
  const r = await w.server.request('GET', '/api/v1/audit?limit=100', { headers: w.owner.headers });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return (r.body.items as Entry[]).slice(0, r.body.items.length - seen).reverse();
};
const auditCount = async () => (await w.server.request('GET', '/api/v1/audit?limit=100', { headers: w.owner.headers })).body.items.length as number;
const as = (who: TeamWorld['agent'], path: string, body?: unknown) => w.server.request('POST', path, { body, headers: who.headers });

test('a takeover, a reply and an internal note are each in the audit log, by whom and on which conversation, without the words', async () => {
  const { visitor, conversationId } = await chattingVisitor(w, 'I need a human');
  const before = await auditCount();
  assert.is((await as(w.agent, `/api/v1/conversations/${conversationId}/takeover`)).status, 200);
  const reply = await as(w.agent, `/api/v1/conversations/${conversationId}/messages`, { text: 'Hi, Alex here.' });
  assert.is(reply.status, 201);
  const note = await as(w.agent, `/api/v1/conversations/${conversationId}/messages`, { text: 'Customer sounds upset', internal: true });
  assert.is(note.status, 201);
  const entries = await auditSince(before);
  const conv = { type: 'conversation', id: conversationId };
  const alex = { kind: 'user', id: w.agent.userId, name: 'Alex Agent' };
  assert.equal(entries.map(({ action, actor, target, detail }) => ({ action, actor, target, ...(detail ? { detail } : {}) })), [
    { action: 'conversation.takeover', actor: alex, target: conv },
    { action: 'conversation.reply', actor: alex, target: conv, detail: { messageId: reply.body.id } },
    { action: 'conversation.note', actor: alex, target: conv, detail: { messageId: note.body.id } },
  ]);
  assert.not.ok(JSON.stringify(entries).includes('Alex here'), 'the audit log keeps no message text');
  await visitor.close();
});

test('taking over a conversation you already have is logged once', async () => {
  const { visitor, conversationId } = await chattingVisitor(w, 'Anyone there?');
  const before = await auditCount();
  assert.is((await as(w.agent, `/api/v1/conversations/${conversationId}/takeover`)).status, 200);
  assert.is((await as(w.agent, `/api/v1/conversations/${conversationId}/takeover`)).status, 200);
  const entries = await auditSince(before);
  assert.equal(entries.map((e) => e.action), ['conversation.takeover']);
  await visitor.close();
});

test('a reply that takes the conversation over logs the takeover, then the reply', async () => {
  const { visitor, conversationId } = await chattingVisitor(w, 'Hello?');
  const before = await auditCount();
  assert.is((await as(w.agent, `/api/v1/conversations/${conversationId}/messages`, { text: 'Jumping in' })).status, 201);
  assert.equal((await auditSince(before)).map((e) => e.action), ['conversation.takeover', 'conversation.reply']);
  await visitor.close();
});

test('two takeovers by the same person at once are logged once, and the visitor sees one "joined" line', async () => {
  const { visitor, conversationId } = await chattingVisitor(w, 'Help please');
  const before = await auditCount();
  const both = await Promise.all([1, 2, 3, 4].map(() => as(w.agent, `/api/v1/conversations/${conversationId}/takeover`)));
  assert.equal(both.map((r) => r.status), [200, 200, 200, 200]);
  assert.equal((await auditSince(before)).map((e) => e.action), ['conversation.takeover']);
  const transcript = await w.server.request('GET', `/api/v1/conversations/${conversationId}`, { headers: w.owner.headers });
  const joined = (transcript.body.messages as Array<{ text: string }>).filter((m) => m.text === 'Alex Agent joined the conversation.');
  assert.is(joined.length, 1);
  await visitor.close();
});

test('two people taking over at once: one has it, the other is told who does', async () => {
  const { visitor, conversationId } = await chattingVisitor(w, 'Is anyone free?');
  const [a, b] = await Promise.all([w.agent, w.owner].map((who) => as(who, `/api/v1/conversations/${conversationId}/takeover`)));
  assert.equal([a.status, b.status].sort(), [200, 409]);
  const winner = a.status === 200 ? a : b;
  const loser = a.status === 200 ? b : a;
  assert.match(loser.body.error.message, `${winner.body.takenOverBy.userName} has taken this conversation over`);
  const transcript = await w.server.request('GET', `/api/v1/conversations/${conversationId}`, { headers: w.owner.headers });
  assert.equal(transcript.body.takenOverBy ?? transcript.body.conversation?.takenOverBy, winner.body.takenOverBy);
  await visitor.close();
});

test('a webhook test ping is in the audit log with its delivery', async () => {
  const created = await as(w.owner, '/api/v1/webhooks', { url: receiver.url, events: ['lead.captured'] });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const hookId = created.body.id ?? created.body.endpoint?.id;
  const before = await auditCount();
  const ping = await as(w.owner, `/api/v1/webhooks/${hookId}/test`);
  assert.is(ping.status, 202, JSON.stringify(ping.body));
  const entries = await auditSince(before);
  assert.equal(entries.map((e) => [e.action, e.target, e.detail]), [['webhook.test', { type: 'webhook', id: hookId }, { deliveryId: ping.body.delivery.id, eventId: ping.body.eventId }]]);
});

test.run();
