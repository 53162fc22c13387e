import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BotConfigSchema } from '../../src/bots/config/index.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { newId } from '../../src/store/ids.js';
import { startChatWorld, tryConnect, Visitor, type ChatWorld } from './helpers.js';

/** A second bot in the world's workspace, never published, whose draft is named `agentName`. */
async function unpublishedBot(w: ChatWorld, agentName: string): Promise<string> {
  const { app } = w.server;
  const first = await app.store.collection<any>('bots').findById(w.workspaceId, w.botId);
  const draft = BotConfigSchema.parse({ identity: { agentName, instructions: 'Draft instructions: mention the spring sale.' }, brain: first.draft.brain });
  const botId = newId('bot');
  const now = app.clock.now();
  await app.store.collection('bots').insertOne({
    _id: botId, workspaceId: w.workspaceId, name: 'Unpublished', status: 'running', draft, revision: 1, published: null, createdAt: now, updatedAt: now,
  } as any);
  return botId;
}

async function previewToken(w: ChatWorld, botId: string): Promise<string> {
  const r = await w.server.request('POST', `/api/v1/bots/${botId}/preview`, { body: {}, headers: w.owner.headers });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.token;
}

const chatUrl = (w: ChatWorld, q: Record<string, string>) => `${w.server.url.replace('http', 'ws')}/widget/v1/chat?${new URLSearchParams(q)}`;

test('a preview token serves the draft of a bot never published, which is 404 without it', async () => {
  const w = await startChatWorld({ config: { security: { allowedOrigins: ['https://shop.example'] } } });
  try {
    const botId = await unpublishedBot(w, 'Draft Dana');
    const token = await previewToken(w, botId);
    const without = await w.server.request('GET', `/widget/v1/bots/${botId}/config`);
    assert.is(without.status, 404);
    assert.is(without.body.error.code, 'not_found');
    const r = await w.server.request('GET', `/widget/v1/bots/${botId}/config?preview=${encodeURIComponent(token)}`, { headers: { origin: 'https://elsewhere.example' } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.is(r.body.preview, true);
    assert.is(r.body.version, 0);
    assert.is(r.body.identity.agentName, 'Draft Dana');
  } finally {
    await w.close();
  }
});

test('expired, forged and other bots\' preview tokens are refused with 401 or 403 in the error shape', async () => {
  const clock = new FakeClock(Date.now());
  const w = await startChatWorld({ clock });
  try {
    const botId = await unpublishedBot(w, 'Draft Dana');
    const token = await previewToken(w, botId);
    const otherBots = await previewToken(w, w.botId);
    const forged = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const config = (t: string) => w.server.request('GET', `/widget/v1/bots/${botId}/config?preview=${encodeURIComponent(t)}`);

    for (const [t, status, code] of [[forged, 401, 'unauthorized'], ['bpv_nonsense', 401, 'unauthorized'], [otherBots, 403, 'forbidden']] as const) {
      const r = await config(t);
      assert.is(r.status, status, t);
      assert.is(r.body.error.code, code);
      assert.type(r.body.error.message, 'string');
      const s = await tryConnect(chatUrl(w, { botId, preview: t }));
      assert.is(s.status, status, t);
      assert.is(s.body.error.code, code);
    }

    await clock.advance(31 * 60_000);
    const expired = await config(token);
    assert.is(expired.status, 401);
    assert.match(expired.body.error.message, /expired/);
    const s = await tryConnect(chatUrl(w, { botId, preview: token }));
    assert.is(s.status, 401);
    assert.is(s.body.error.code, 'unauthorized');
  } finally {
    await w.close();
  }
});

test('a chat with an unpublished bot works with a preview token and keeps its draft after the actor is rebuilt', async () => {
  const w = await startChatWorld();
  try {
    const { app } = w.server;
    const botId = await unpublishedBot(w, 'Draft Dana');
    const token = await previewToken(w, botId);
    const v = await Visitor.open(chatUrl(w, { botId, preview: token }));
    v.say('hello');
    const { conversationId } = await v.next('conversation');
    const first = await v.reply();
    assert.is(first.message.text, 'You said: hello');
    const system = w.fake.lastBody('/chat/completions').messages[0].content;
    assert.match(system, /Draft Dana/);
    assert.match(system, /spring sale/);

    const conv = await app.store.collection<any>('conversations').findById(w.workspaceId, conversationId);
    assert.is(conv.configVersion, 0);
    assert.is(conv.previewConfig.identity.agentName, 'Draft Dana');

    // The draft changes and a version is published; the preview conversation keeps the draft it started with.
    const later = BotConfigSchema.parse({ ...conv.previewConfig, identity: { ...conv.previewConfig.identity, agentName: 'Published Pete' } });
    await app.store.collection('bots').updateOne({ workspaceId: w.workspaceId, _id: botId }, {
      $set: { draft: later, published: { version: 1, config: later, publishedAt: app.clock.now() }, updatedAt: app.clock.now() + 1 },
    });
    await w.server.services.conversations.forget(conversationId);
    v.say('again');
    await v.reply();
    const again = w.fake.lastBody('/chat/completions').messages[0].content;
    assert.match(again, /Draft Dana/);
    assert.not.match(again, /Published Pete/);
    await v.close();

    // A visitor of the published bot never resumes the preview conversation.
    const plain = await Visitor.open(chatUrl(w, { botId, visitorToken: v.ready.visitorToken }));
    assert.is(plain.ready.conversationId, null);
    await plain.close();
  } finally {
    await w.close();
  }
});

test.run();
