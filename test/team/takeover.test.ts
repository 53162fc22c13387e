import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isDeliverable } from '../../src/events/webhooks/constants.js';
import { createToken } from '../helpers/auth.js';
import { addMember } from '../helpers/auth.js';
import { connect, startTeamWorld, type TeamWorld } from './helpers.js';

let w: TeamWorld;
test.before(async () => { w = await startTeamWorld({ behavior: { handoff: { enabled: true } } }); });
test.after(async () => { await w.stop(); });

test('a team member takes over, replies, adds a note and releases while a visitor chats', async () => {
  const live = await w.live(w.agent);
  const hello = await live.event('hello');
  assert.equal(hello.data, { workspaceId: w.agent.workspaceId });
  await live.event('presence.changed', (d) => d.userId === w.agent.userId && d.presence === 'online');

  const visitor = await w.widget();
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'Can a person help me?' });
  const started = await live.event('conversation.started');
  const conversationId = started.data.conversationId;
  assert.equal(Object.keys(started.data).sort(), ['botId', 'conversationId', 'visitorId', 'workspaceId']);
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  const modelCalls = w.fake.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

  const h = w.agent.headers;
  const took = await w.server.request('POST', `/api/v1/conversations/${conversationId}/takeover`, { headers: h });
  assert.is(took.status, 200);
  assert.equal(took.body.takenOverBy, { userId: w.agent.userId, userName: 'Alex Agent' });
  const updated = await live.event('conversation.updated', (d) => d.conversationId === conversationId);
  assert.equal(updated.data.patch, { takenOverBy: { userId: w.agent.userId, userName: 'Alex Agent' } });
  const joined = await visitor.frame('message', (f) => f.message.role === 'system_event');
  assert.is(joined.message.text, 'Alex Agent joined the conversation.');

  // The AI stays quiet while a person has the conversation.
  visitor.send({ t: 'message', text: 'Hello Alex?' });
  await live.event('message.created', (d) => d.message.role === 'user' && d.message.text === 'Hello Alex?');

  assert.is((await w.server.request('POST', `/api/v1/conversations/${conversationId}/typing`, { body: { active: true }, headers: h })).status, 204);
  const typing = await visitor.frame('typing');
  assert.equal({ active: typing.active, authorName: typing.authorName }, { active: true, authorName: 'Alex Agent' });

  const sent = await w.server.request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: 'Hi, Alex here. How can I help?' }, headers: h });
  assert.is(sent.status, 201);
  assert.is(sent.body.role, 'human_agent');
  assert.is(sent.body.authorName, 'Alex Agent');
  const reply = await visitor.frame('message', (f) => f.message.role === 'human_agent');
  assert.is(reply.message.text, 'Hi, Alex here. How can I help?');

  const note = await w.server.request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: 'VIP customer, be nice', internal: true }, headers: h });
  assert.is(note.status, 201);
  assert.is(note.body.visibility, 'internal');
  const noted = await live.event('message.created', (d) => d.message.id === note.body.id);
  assert.is(noted.data.message.visibility, 'internal', 'the team sees its note on the live socket');
  const stored = await w.server.app.records.messages.findById(w.agent.workspaceId, note.body.id);
  assert.is(stored?.visibility, 'internal');
  assert.not.ok(isDeliverable('message.created', { message: { visibility: 'internal' } }), 'an internal note is never a webhook');

  const released = await w.server.request('POST', `/api/v1/conversations/${conversationId}/release`, { headers: h });
  assert.is(released.status, 200);
  const resolved = await live.event('handoff.resolved', (d) => d.conversationId === conversationId);
  assert.equal(resolved.data, { botId: w.botId, conversationId, handoffId: null, by: w.agent.userId, workspaceId: w.agent.workspaceId });
  await live.event('conversation.updated', (d) => d.patch.takenOverBy === null);
  await visitor.frame('message', (f) => f.message.role === 'system_event' && f.message.text === 'Alex Agent left the conversation.');

  assert.is(w.fake.requests.filter((r) => r.path.endsWith('/chat/completions')).length, modelCalls, 'the model was not called while taken over');
  visitor.send({ t: 'message', text: 'Thanks, bye' });
  const back = await visitor.frame('message', (f) => f.message.role === 'assistant');
  assert.is(back.message.text, 'You said: Thanks, bye');
  assert.not.ok(visitor.frames.some((f) => f.t === 'message' && f.message.visibility === 'internal'), 'the visitor never saw the note');
  assert.not.ok(visitor.frames.some((f) => f.t === 'message' && f.message.text.includes('VIP')), 'the visitor never saw the note');
  await visitor.close();
  await live.close();
});

test('a second person cannot take over a conversation someone already has', async () => {
  const visitor = await w.widget();
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'hi' });
  const conv = await visitor.frame('conversation');
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  assert.is((await w.server.request('POST', `/api/v1/conversations/${conv.conversationId}/takeover`, { headers: w.agent.headers })).status, 200);
  assert.is((await w.server.request('POST', `/api/v1/conversations/${conv.conversationId}/takeover`, { headers: w.agent.headers })).status, 200, 'taking over again is harmless');
  const other = await w.server.request('POST', `/api/v1/conversations/${conv.conversationId}/takeover`, { headers: w.owner.headers });
  assert.is(other.status, 409);
  assert.is(other.body.error.code, 'conflict');
  assert.is((await w.server.request('POST', `/api/v1/conversations/${conv.conversationId}/release`, { headers: w.owner.headers })).status, 200);
  assert.is((await w.server.request('POST', `/api/v1/conversations/${conv.conversationId}/release`, { headers: w.owner.headers })).status, 409, 'nothing to release');
  await visitor.close();
});

test('agent actions need a signed-in agent: viewers and API tokens are refused', async () => {
  const viewer = await addMember(w.server, w.owner, 'viewer');
  const token = await createToken(w.server, w.owner, ['conversations:write']);
  const path = '/api/v1/conversations/conv_missing/takeover';
  assert.is((await w.server.request('POST', path, { headers: viewer.headers })).status, 403);
  assert.is((await w.server.request('POST', path, { headers: token.headers })).status, 403);
  assert.is((await w.server.request('POST', path, { headers: w.agent.headers })).status, 404);
  const empty = await w.server.request('POST', '/api/v1/conversations/conv_missing/messages', { body: { text: '  ' }, headers: w.agent.headers });
  assert.is(empty.status, 422);
});

test('the live socket refuses API tokens and missing sessions', async () => {
  const token = await createToken(w.server, w.owner, ['conversations:read']);
  const url = `${w.server.url.replace('http', 'ws')}/api/v1/live`;
  const refused = (p: Promise<unknown>) => p.then(() => 0, (e: { status?: number }) => e.status ?? -1);
  assert.is(await refused(connect(url, token.headers)), 403);
  assert.is(await refused(connect(url, { authorization: 'Bearer sct_not_a_token' })), 401);
  assert.is(await refused(connect(url)), 401);
  assert.is(await refused(connect(url, { cookie: w.agent.cookie, origin: 'https://evil.example' })), 403);
});

test('live events are only those of the user\'s own workspace, with the spec\'s fields', async () => {
  const live = await w.live(w.owner);
  await live.event('hello');
  w.server.app.events.publishVolatile('ws_someone_else', 'visitor.typing', { conversationId: 'conv_x', active: true });
  w.server.app.events.publishVolatile(w.owner.workspaceId, 'tool.called', { botId: 'bot_1', conversationId: 'conv_y', name: 'lookup', isError: false, durationMs: 12, secret: 'no' });
  const tool = await live.event('tool.called');
  assert.equal(tool.data, { conversationId: 'conv_y', name: 'lookup', isError: false, durationMs: 12, workspaceId: w.owner.workspaceId });
  assert.not.ok(live.all('visitor.typing').length, 'another workspace\'s event never arrives');
  live.send({ t: 'presence', presence: 'away' });
  await live.event('presence.changed', (d) => d.userId === w.owner.userId && d.presence === 'away');
  live.send({ t: 'nonsense' });
  await live.event('error');
  await live.close();
});

test.run();
