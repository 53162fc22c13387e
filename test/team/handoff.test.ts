import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { requestHandoff } from '../../src/team/handoff.js';
import { botOffline } from '../../actors/conversation/offline.js';
import { loadBotForChat } from '../../src/bots/bot-source.js';
import { until } from '../helpers/until.js';
import { chattingVisitor, republish, startTeamWorld, type TeamWorld } from './helpers.js';

// 2026-01-01 is a Thursday; the clock starts at 00:00 UTC and only moves when a test advances it.
const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
const ALWAYS_OPEN = { enabled: true, timezone: 'UTC', weekly: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, open: '00:00', close: '23:59' })), holidays: [], scope: 'handoff' };
const CLOSED_TODAY = { ...ALWAYS_OPEN, holidays: ['2026-01-01'] };
const OFFLINE_TEXT = 'Nobody is here right now, {{agent.name}} will pass it on.';

let w: TeamWorld;
test.before(async () => {
  w = await startTeamWorld({
    behavior: {
      handoff: { enabled: true, acceptTimeoutSec: 30, offlineAction: 'lead_form' },
      hours: ALWAYS_OPEN,
      leadCapture: { enabled: true, when: 'tool' },
    },
    texts: { offline: OFFLINE_TEXT },
  }, { clock });
});
test.after(async () => { await w.stop(); });

test('the agent asks for a person, nobody accepts, and the wait times out into the offline flow', async () => {
  const live = await w.live(w.agent);
  await live.event('presence.changed', (d) => d.presence === 'online');
  w.fake.script([{ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'wants a refund' } }] }, { text: 'Let me get someone for you.' }]);
  const { visitor, conversationId } = await chattingVisitor(w, 'I want a refund, get me a human');

  const requested = await live.event('handoff.requested', (d) => d.conversationId === conversationId);
  assert.is(requested.data.reason, 'wants a refund');
  assert.is(requested.data.summary, 'Visitor: I want a refund, get me a human');
  assert.equal(Object.keys(requested.data).sort(), ['botId', 'conversationId', 'handoffId', 'reason', 'summary', 'workspaceId']);
  assert.not.ok(visitor.all('lead_form').length, 'no form while someone may still accept');

  await clock.advance(29_000);
  assert.is((await w.server.app.records.handoffs.findById(w.agent.workspaceId, requested.data.handoffId))?.state, 'requested');
  await clock.advance(1_000);
  const line = await visitor.frame('message', (f) => f.message.role === 'system_event');
  assert.is(line.message.text, 'Nobody is here right now, Ava will pass it on.');
  const form = await visitor.frame('lead_form');
  assert.is(form.reason, 'offline');
  assert.equal(form.fields.map((f: { key: string }) => f.key), ['name', 'email']);
  const h = await w.server.app.records.handoffs.findById(w.agent.workspaceId, requested.data.handoffId);
  assert.is(h?.state, 'unanswered');
  assert.is(h?.unansweredReason, 'timeout');
  await visitor.close();
  await live.close();
});

test('a visitor who could not be told that nobody came is told on the next try, once', async () => {
  const live = await w.live(w.agent);
  await live.event('presence.changed', (d) => d.presence === 'online');
  w.fake.script([{ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'a person' } }] }, { text: 'One moment.' }]);
  const { visitor, conversationId } = await chattingVisitor(w, 'A person, please');
  const requested = await live.event('handoff.requested', (d) => d.conversationId === conversationId);
  // The first try to tell the visitor fails as it does in a group when the conversation's process cannot be reached.
  const service = w.server.services.conversations;
  const ask = service.ask.bind(service);
  let tries = 0;
  service.ask = ((id: string, msg: { type: string }) => (id === conversationId && msg.type === 'systemLine' && tries++ === 0
    ? Promise.reject(new Error(`conversation ${id} could not be reached on its owner process; try again`))
    : ask(id, msg as never))) as typeof service.ask;
  try {
    await clock.advance(30_000);
    const h = await until(() => w.server.app.records.handoffs.findById(w.agent.workspaceId, requested.data.handoffId), { ok: () => tries === 1 });
    assert.is(h?.state, 'requested', 'the wait is open again, not closed as told');
    await clock.advance(5_000);
    await visitor.frame('message', (f) => f.message.role === 'system_event');
    await visitor.frame('lead_form');
    const t = (await w.server.request('GET', `/api/v1/conversations/${conversationId}`, { headers: w.owner.headers })).body;
    assert.is(t.messages.filter((m: { role: string }) => m.role === 'system_event').length, 1, 'told once');
    assert.is((await w.server.app.records.handoffs.findById(w.agent.workspaceId, requested.data.handoffId))?.state, 'unanswered');
  } finally {
    service.ask = ask;
  }
  await visitor.close();
  await live.close();
});

test('a takeover accepts a waiting handoff and a release resolves it', async () => {
  const live = await w.live(w.agent);
  await live.event('hello');
  const { visitor, conversationId } = await chattingVisitor(w, 'hello');
  const r = await requestHandoff(w.server.app, w.server.services, { conversationId, reason: null, source: 'visitor' });
  assert.ok(r.ok && r.available);
  const requested = await live.event('handoff.requested', (d) => d.conversationId === conversationId);
  assert.is(requested.data.reason, null);

  await w.server.request('POST', `/api/v1/conversations/${conversationId}/takeover`, { headers: w.agent.headers });
  const accepted = await live.event('handoff.accepted', (d) => d.conversationId === conversationId);
  assert.equal(accepted.data, { botId: w.botId, conversationId, handoffId: requested.data.handoffId, userId: w.agent.userId, userName: 'Alex Agent', workspaceId: w.agent.workspaceId });

  await clock.advance(60_000);
  assert.not.ok(visitor.all('lead_form').length, 'an accepted handoff never times out');
  await w.server.request('POST', `/api/v1/conversations/${conversationId}/release`, { headers: w.agent.headers });
  const resolved = await live.event('handoff.resolved', (d) => d.conversationId === conversationId);
  assert.is(resolved.data.handoffId, requested.data.handoffId);
  assert.is(resolved.data.by, w.agent.userId);
  await visitor.close();
  await live.close();
});

test('outside opening hours a handoff goes straight to the offline flow', async () => {
  await republish(w, { behavior: { hours: CLOSED_TODAY } });
  const live = await w.live(w.agent);
  await live.event('hello');
  const { visitor, conversationId } = await chattingVisitor(w, 'anyone there?');
  const r = await requestHandoff(w.server.app, w.server.services, { conversationId, reason: 'visitor asked', source: 'visitor' });
  assert.ok(r.ok && !r.available);
  await visitor.frame('message', (f) => f.message.role === 'system_event' && f.message.text.startsWith('Nobody is here'));
  await visitor.frame('lead_form', (f) => f.reason === 'offline');
  assert.is((await w.server.app.records.handoffs.findOne({ workspaceId: w.agent.workspaceId, conversationId }))?.unansweredReason, 'closed_hours');
  await visitor.close();
  await live.close();
});

test('with nobody on the live socket the offline message goes out at once, without a form for offlineAction message', async () => {
  await republish(w, { behavior: { hours: ALWAYS_OPEN, handoff: { offlineAction: 'message' } } });
  const { visitor, conversationId } = await chattingVisitor(w, 'help');
  const r = await requestHandoff(w.server.app, w.server.services, { conversationId, reason: null, source: 'visitor' });
  assert.ok(r.ok && !r.available);
  await visitor.frame('message', (f) => f.message.role === 'system_event' && f.message.text.startsWith('Nobody is here'));
  assert.is((await w.server.app.records.handoffs.findOne({ workspaceId: w.agent.workspaceId, conversationId }))?.unansweredReason, 'nobody_available');
  assert.not.ok(visitor.all('lead_form').length);
  await visitor.close();
});

test('a bot with handoff off refuses a handoff request', async () => {
  await republish(w, { behavior: { handoff: { enabled: false } } });
  const { visitor, conversationId } = await chattingVisitor(w, 'hi');
  const r = await requestHandoff(w.server.app, w.server.services, { conversationId, reason: null, source: 'visitor' });
  assert.equal(r.ok ? null : r.code, 'forbidden');
  await visitor.close();
});

test('with hours scope bot, outside hours the offline text goes out at most once an hour', async () => {
  await republish(w, { behavior: { hours: { ...CLOSED_TODAY, scope: 'bot' } } });
  const chat = await loadBotForChat(w.server.app, w.botId);
  const conv = { _id: 'conv_offline_test', workspaceId: w.agent.workspaceId };
  const first = await botOffline(w.server.app, conv, chat!.config);
  assert.is(first?.notice, 'Nobody is here right now, Ava will pass it on.');
  assert.is(first?.leadForm?.reason, 'offline');
  await clock.advance(59 * 60_000);
  const again = await botOffline(w.server.app, conv, chat!.config);
  assert.ok(again, 'still offline');
  assert.is(again?.notice, null);
  await clock.advance(60_000);
  assert.is((await botOffline(w.server.app, conv, chat!.config))?.notice, 'Nobody is here right now, Ava will pass it on.');
  await republish(w, { behavior: { hours: ALWAYS_OPEN } });
  const open = await loadBotForChat(w.server.app, w.botId);
  assert.is(await botOffline(w.server.app, conv, open!.config), null);
});

test('a team member who is away is not available, and the form comes before a handoff when asked for', async () => {
  await republish(w, { behavior: { hours: ALWAYS_OPEN, handoff: { enabled: true, offlineAction: 'lead_form' }, leadCapture: { enabled: true, when: 'before_handoff' } } });
  const live = await w.live(w.agent);
  await live.event('hello');
  live.send({ t: 'presence', presence: 'away' });
  await live.event('presence.changed', (d) => d.userId === w.agent.userId && d.presence === 'away');
  const first = await chattingVisitor(w, 'one');
  const away = await requestHandoff(w.server.app, w.server.services, { conversationId: first.conversationId, reason: null, source: 'visitor' });
  assert.ok(away.ok && !away.available, 'away means not available');
  await first.visitor.frame('lead_form', (f) => f.reason === 'offline');

  live.send({ t: 'presence', presence: 'online' });
  await live.event('presence.changed', (d) => d.userId === w.agent.userId && d.presence === 'online');
  const second = await chattingVisitor(w, 'two');
  const online = await requestHandoff(w.server.app, w.server.services, { conversationId: second.conversationId, reason: null, source: 'visitor' });
  assert.ok(online.ok && online.available);
  await second.visitor.frame('lead_form', (f) => f.reason === 'before_handoff');
  const again = await requestHandoff(w.server.app, w.server.services, { conversationId: second.conversationId, reason: 'again', source: 'agent' });
  assert.is(again.ok && again.handoff._id, online.ok && online.handoff._id, 'a second request returns the open one');

  // The conversation ends before anyone accepts: no offline flow afterwards.
  assert.is((await w.server.request('POST', `/api/v1/conversations/${second.conversationId}/close`, { headers: w.agent.headers })).status < 300, true);
  await second.visitor.frame('ended');
  const h = await until(() => w.server.app.records.handoffs.findOne({ workspaceId: w.agent.workspaceId, conversationId: second.conversationId }), { ok: (x) => x?.state !== 'requested', message: 'the handoff no longer requested' });
  assert.is(h?.unansweredReason, 'ended');
  await clock.advance(60_000);
  assert.not.ok(second.visitor.all('message').some((f) => f.message.role === 'system_event'), 'no offline text after the end');

  const owner = await w.live(w.owner);
  await owner.event('hello');
  await live.close();
  await owner.event('presence.changed', (d) => d.userId === w.agent.userId && d.presence === 'offline');
  const presence = await w.server.request('GET', '/api/v1/members', { headers: w.owner.headers });
  assert.is(presence.body.items.find((m: { id: string }) => m.id === w.agent.userId)?.presence, 'offline', 'closing the last socket marks the user offline');
  await owner.close();
  await first.visitor.close();
  await second.visitor.close();
});

test.run();
