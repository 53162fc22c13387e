import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadBotForChat } from '../../src/bots/bot-source.js';
import { FakeClock, flushMicrotasks } from '../../src/kernel/clock.js';
import { newId } from '../../src/store/ids.js';
import { startChatWorld } from './helpers.js';
import { until } from '../helpers/until.js';

const convOf = (w: any, id: string) => w.server.app.store.collection('conversations').findById(w.workspaceId, id);

test('a conversation ends as idle after endAfterIdleMinutes once no one has it open', async () => {
  const clock = new FakeClock(Date.now());
  const w = await startChatWorld({ clock, config: { behavior: { endAfterIdleMinutes: 30 } } });
  try {
    const v = await w.visitor();
    v.say('hi');
    const { conversationId } = await v.next('conversation');
    await v.reply();
    await clock.advance(60 * 60_000);
    assert.is((await convOf(w, conversationId)).status, 'open', 'an open widget keeps it going');
    await v.close();
    await until(async () => (await convOf(w, conversationId)).idleEndsAt !== null, { interval: 0, message: 'idle timer' });
    await clock.advance(29 * 60_000);
    assert.is((await convOf(w, conversationId)).status, 'open');
    await clock.advance(2 * 60_000);
    await until(async () => (await convOf(w, conversationId)).status === 'ended', { interval: 0, message: 'idle end' });
    assert.is((await convOf(w, conversationId)).endReason, 'idle');
  } finally {
    await w.close();
  }
});

test('after a crash, open conversations left without an idle end end endAfterIdleMinutes after their last message', async () => {
  const clock = new FakeClock(Date.now());
  const w = await startChatWorld({ clock, config: { behavior: { endAfterIdleMinutes: 30 } } });
  try {
    const { app } = w.server;
    const service = w.server.services.conversations;
    const chat = (await loadBotForChat(app, w.botId))!;
    // As a stopped process leaves them: open, idleEndsAt null (a widget had them open), no actor, no widget.
    const left = async (minutesAgo: number) => {
      const r = await service.start({ chat, visitorId: newId('vis'), verified: false, ip: '127.0.0.9', page: { url: '', title: '' }, visitor: {} });
      assert.ok(r.ok);
      const lastMessageAt = clock.now() - minutesAgo * 60_000;
      await app.store.collection('conversations').updateOne({ workspaceId: w.workspaceId, _id: r.conversation._id }, { $set: { lastMessageAt } });
      return { id: r.conversation._id, lastMessageAt };
    };
    const swept = await left(10);
    const rebuilt = await left(120);

    // An actor rebuilt for another reason counts from the last message too.
    service.send(rebuilt.id, { type: 'idleCheck' });
    await until(async () => (await convOf(w, rebuilt.id)).status === 'ended', { interval: 0, message: 'the rebuilt actor ends it' });
    assert.is((await convOf(w, rebuilt.id)).endReason, 'idle');

    // The first sweep gives the others their idle end, counted from the last message.
    await clock.advance(60_000);
    await until(async () => (await convOf(w, swept.id)).idleEndsAt !== null, { interval: 0, message: 'the start-up sweep' });
    assert.is((await convOf(w, swept.id)).idleEndsAt, swept.lastMessageAt + 30 * 60_000);
    assert.is((await convOf(w, swept.id)).status, 'open');
    for (let i = 0; i < 30 && (await convOf(w, swept.id)).status === 'open'; i++) {
      await clock.advance(60_000);
      await flushMicrotasks(20);
    }
    assert.is((await convOf(w, swept.id)).status, 'ended');
    assert.is((await convOf(w, swept.id)).endReason, 'idle');
    assert.ok(clock.now() >= swept.lastMessageAt + 30 * 60_000);
  } finally {
    await w.close();
  }
});

test('resumeWindowHours and showHistory decide what a returning visitor gets', async () => {
  const clock = new FakeClock(Date.now());
  const w = await startChatWorld({ clock, config: { behavior: { endAfterIdleMinutes: 1440, persistence: { resumeWindowHours: 1, showHistory: false } } } });
  try {
    const v = await w.visitor();
    v.say('hi');
    const { conversationId } = await v.next('conversation');
    await v.reply();
    await v.close();
    const back = await w.visitor({ visitorToken: v.ready.visitorToken });
    assert.is(back.ready.conversationId, conversationId);
    assert.equal(back.ready.history, [], 'showHistory off starts the window clean');
    await back.close();
    await clock.advance(2 * 3600_000);
    const later = await w.visitor({ visitorToken: v.ready.visitorToken });
    assert.is(later.ready.conversationId, null);
    await later.close();
  } finally {
    await w.close();
  }
});

test('the team closes and tags a conversation through REST; lists page with nextBefore', async () => {
  const w = await startChatWorld();
  try {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const v = await w.visitor();
      v.say(`visitor ${i}`);
      ids.push((await v.next('conversation')).conversationId);
      await v.reply();
      if (i < 2) await v.close();
      else {
        const closed = await w.server.request('POST', `/api/v1/conversations/${ids[2]}/close`, { headers: w.owner.headers });
        assert.is(closed.status, 200);
        assert.is(closed.body.endReason, 'closed_by_team');
        assert.is((await v.next('ended')).reason, 'closed_by_team');
        await v.close();
      }
    }
    const tagged = await w.server.request('POST', `/api/v1/conversations/${ids[0]}/tags`, { headers: w.owner.headers, body: { tags: ['vip', 'vip', 'billing'] } });
    assert.equal(tagged.body.tags, ['vip', 'billing']);
    const bad = await w.server.request('POST', `/api/v1/conversations/${ids[0]}/tags`, { headers: w.owner.headers, body: { tags: 'vip' } });
    assert.is(bad.status, 422);
    const page1 = await w.server.request('GET', '/api/v1/conversations?limit=2', { headers: w.owner.headers });
    assert.equal(page1.body.items.map((c: any) => c.id), [ids[2], ids[1]]);
    const page2 = await w.server.request('GET', `/api/v1/conversations?limit=2&before=${page1.body.nextBefore}`, { headers: w.owner.headers });
    assert.equal(page2.body.items.map((c: any) => c.id), [ids[0]]);
    assert.is(page2.body.nextBefore, null);
    assert.is((await w.server.request('GET', '/api/v1/conversations')).status, 401);
  } finally {
    await w.close();
  }
});

test('while a team member has taken over, the AI stays quiet; the team replies; release hands back', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    v.say('I want a human');
    const { conversationId } = await v.next('conversation');
    await v.reply();
    const service = w.server.services.conversations;
    await service.ask(conversationId, { type: 'takeover', userId: 'usr_1', userName: 'Tom' });
    const calls = w.fake.requests.length;
    v.say('hello?');
    await v.next('message', (f) => f.message.text === 'hello?');
    service.send(conversationId, { type: 'teamTyping', active: true, authorName: 'Tom' });
    assert.is((await v.next('typing')).authorName, 'Tom');
    await service.ask(conversationId, { type: 'teamMessage', userId: 'usr_1', authorName: 'Tom', text: 'Tom here', internal: false });
    const team = await v.next('message', (f) => f.message.role === 'human_agent');
    assert.is(team.message.authorName, 'Tom');
    await service.ask(conversationId, { type: 'teamMessage', userId: 'usr_1', authorName: 'Tom', text: 'note to self', internal: true });
    assert.is(w.fake.requests.length, calls, 'no model call while taken over');
    await service.ask(conversationId, { type: 'release', by: 'usr_1' });
    service.send(conversationId, { type: 'agentReply' });
    const { message } = await v.reply();
    assert.match(message.text, /You said/);
    assert.not.ok(v.frames.some((f) => f.t === 'message' && f.message.text === 'note to self'), 'internal notes stay with the team');
    const t = await w.server.request('GET', `/api/v1/conversations/${conversationId}`, { headers: w.owner.headers });
    assert.ok(t.body.messages.some((m: any) => m.visibility === 'internal'));
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
