import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { CHAT_BOT_TTL_MS } from '../../src/bots/chat-bot-cache.js';
import { startChatWorld } from './helpers.js';
import { startFakeOpenAI } from '../fakes/openai.js';

// Issue 37: a widget connect reads nothing of the bot that memory holds (the published record, its parsed config
// and its brain are kept per bot), yet a change the server makes shows at the next connect, on this process.

const welcome = async (w: Awaited<ReturnType<typeof startChatWorld>>, q: Record<string, string> = {}) => {
  const v = await w.visitor(q);
  await v.close();
  return v.ready.welcome.message as string;
};

test('a connect uses the kept bot; a publish or a pause shows at the next connect; a change behind the server within the lifetime', async () => {
  const clock = new FakeClock(Date.UTC(2026, 10, 2, 9, 0));
  const w = await startChatWorld({ clock, config: { welcome: { message: 'Hello from A' } } });
  try {
    assert.is(await welcome(w), 'Hello from A');
    assert.ok(w.server.services.chatBots.keeps(w.botId));
    // Edited in the store by hand (not through the server): the kept bot is served, so the record was not read.
    const raw = w.server.app.store.collection<any>('bots');
    const rec: any = await raw.findById(w.workspaceId, w.botId);
    await raw.updateOne({ workspaceId: w.workspaceId, _id: w.botId }, { $set: { 'published.config': { ...rec.published.config, welcome: { ...rec.published.config.welcome, message: 'Edited by hand' } }, updatedAt: rec.updatedAt + 1 } });
    assert.is(await welcome(w), 'Hello from A', 'kept: the store was not read');
    // Past its lifetime the kept bot is served once more while it is read again beside the connect.
    await clock.advance(CHAT_BOT_TTL_MS);
    assert.is(await welcome(w), 'Hello from A');
    let seen = '';
    for (let i = 0; i < 20 && seen !== 'Edited by hand'; i++) seen = await welcome(w);
    assert.is(seen, 'Edited by hand');

    // A publish through the API shows at the very next connect.
    await w.setBot({ published: null });
    const bot = await w.server.request('GET', `/api/v1/bots/${w.botId}`, { headers: w.owner.headers });
    const edited = await w.server.request('PATCH', `/api/v1/bots/${w.botId}`, { headers: w.owner.headers, body: { revision: bot.body.revision, patch: { welcome: { message: 'Hello from B' } } } });
    assert.is(edited.status, 200, JSON.stringify(edited.body));
    const published = await w.server.request('POST', `/api/v1/bots/${w.botId}/publish`, { headers: w.owner.headers, body: { revision: edited.body.revision } });
    assert.is(published.status, 200, JSON.stringify(published.body));
    assert.is(await welcome(w), 'Hello from B');

    // Paused through the API: the next connect is a paused chat.
    const paused = await w.server.request('POST', `/api/v1/bots/${w.botId}/status`, { headers: w.owner.headers, body: { status: 'paused' } });
    assert.is(paused.status, 200, JSON.stringify(paused.body));
    const v = await w.visitor();
    assert.is(v.ready.paused, true);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a provider connection\'s new key and base URL answer the next reply of a conversation under way', async () => {
  // Rotating a leaked key: the old one stops working at the provider, so every reply must use the new one at once.
  const w = await startChatWorld();
  const rotated = await startFakeOpenAI({ apiKey: 'rotated-key' });
  try {
    const v = await w.visitor();
    w.fake.script({ text: 'From the old connection.' });
    v.say('hello');
    assert.is((await v.reply()).message.text, 'From the old connection.');
    const list = await w.server.request('GET', '/api/v1/providers', { headers: w.owner.headers });
    const patched = await w.server.request('PATCH', `/api/v1/providers/${list.body.items[0].id}`, { headers: w.owner.headers, body: { apiKey: rotated.apiKey, baseUrl: rotated.baseUrl } });
    assert.is(patched.status, 200, JSON.stringify(patched.body));
    rotated.script({ text: 'From the new connection.' });
    v.say('and again');
    assert.is((await v.reply()).message.text, 'From the new connection.');
    assert.is(rotated.requests.filter((r) => r.path.includes('/chat/completions')).length, 1);
    // A new visitor's first reply too.
    const v2 = await w.visitor();
    rotated.script({ text: 'Hello, new visitor.' });
    v2.say('hi');
    assert.is((await v2.reply()).message.text, 'Hello, new visitor.');
    await v.close();
    await v2.close();
  } finally {
    await rotated.close();
    await w.close();
  }
});

test('a returning visitor keeps their id and conversation; a new visitor gets a new id; an erased one starts anew', async () => {
  const w = await startChatWorld();
  try {
    const first = await w.visitor();
    w.fake.script({ text: 'Hi there.' });
    first.say('hello');
    await first.reply();
    await first.close();
    const back = await w.visitor({ visitorToken: first.ready.visitorToken });
    assert.is(back.ready.visitorId, first.ready.visitorId);
    assert.is(back.ready.conversationId, first.frames.find((f) => f.t === 'conversation').conversationId);
    assert.ok(back.ready.history.length >= 2, 'the history is sent');
    await back.close();
    const other = await w.visitor();
    assert.is.not(other.ready.visitorId, first.ready.visitorId);
    assert.is(other.ready.conversationId, null);
    await other.close();
    // A token whose visitor record is gone (and not erased) keeps its id, as a new record.
    await w.server.app.store.collection('visitors').deleteOne({ workspaceId: w.workspaceId, _id: other.ready.visitorId });
    const again = await w.visitor({ visitorToken: other.ready.visitorToken });
    assert.is(again.ready.visitorId, other.ready.visitorId);
    await again.close();
  } finally {
    await w.close();
  }
});

test.run();
