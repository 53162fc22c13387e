import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { identityHash } from '../../src/chat/identity.js';
import { originAllowed } from '../../src/chat/origin.js';
import { startChatWorld } from './helpers.js';

test('allowedOrigins accepts every form of the setting and nothing else', () => {
  const cases: Array<[string | undefined, string[], boolean]> = [
    ['https://any.site', [], true],
    [undefined, ['*'], true],
    [undefined, ['https://example.com'], false],
    ['https://example.com', ['https://example.com'], true],
    ['https://example.com:443', ['https://example.com'], true],
    ['http://example.com', ['https://example.com'], false],
    ['https://example.com:8443', ['https://example.com'], false],
    ['https://shop.example.com', ['https://*.example.com'], true],
    ['https://a.b.example.com', ['https://*.example.com'], true],
    ['https://example.com', ['https://*.example.com'], false],
    ['https://badexample.com', ['https://*.example.com'], false],
    ['http://localhost:5173', ['http://localhost:*'], true],
    ['https://localhost:5173', ['http://localhost:*'], false],
    ['http://example.com', ['example.com'], true],
    ['https://example.com', ['example.com'], true],
    ['https://www.example.com', ['example.com'], false],
    ['https://evil.com', ['https://example.com', 'example.org'], false],
    ['null', ['https://example.com'], false],
  ];
  for (const [origin, list, want] of cases) assert.is(originAllowed(origin, list), want, `${origin} with ${JSON.stringify(list)}`);
});

test('the socket refuses an origin outside allowedOrigins and an unknown bot', async () => {
  const w = await startChatWorld({ config: { security: { allowedOrigins: ['https://*.example.com'] } } });
  try {
    const bad = await w.tryConnect({}, { origin: 'https://evil.com' });
    assert.is(bad.status, 403);
    assert.is(bad.body.error.code, 'forbidden');
    assert.is((await w.tryConnect({}, { origin: 'https://shop.example.com' })).status, 101);
    assert.is((await w.tryConnect({ botId: 'bot_missing' }, { origin: 'https://shop.example.com' })).status, 404);
    // No botId: refused after the upgrade (the query is read in admit, not in the upgrade's turn of the loop).
    const none = await w.tryConnect({ botId: '' }, { origin: 'https://shop.example.com' });
    assert.is(none.status, 400);
    assert.is(none.closeCode, 4400);
    assert.equal(none.body.error, { code: 'bad_request', message: 'botId: required' });
  } finally {
    await w.close();
  }
});

test('a returning visitor token gives the same visitor and continues the conversation with history', async () => {
  const w = await startChatWorld();
  try {
    const v1 = await w.visitor();
    v1.say('remember me');
    await v1.reply();
    await v1.close();
    const v2 = await w.visitor({ visitorToken: v1.ready.visitorToken });
    assert.is(v2.ready.visitorId, v1.ready.visitorId);
    assert.ok(v2.ready.conversationId);
    assert.equal(v2.ready.history.map((m: any) => m.text), ['remember me', 'You said: remember me']);
    const forged = await w.visitor({ visitorToken: v1.ready.visitorToken.slice(0, -2) + 'xx' });
    assert.is.not(forged.ready.visitorId, v1.ready.visitorId);
    assert.is(forged.ready.conversationId, null);
    await v2.close();
    await forged.close();
  } finally {
    await w.close();
  }
});

test('identity: a forged or missing hash never reaches a verified visitor history', async () => {
  const secret = 'identity-secret-for-tests';
  const w = await startChatWorld({ identitySecret: secret, config: { security: { identity: { mode: 'optional' } }, identity: { instructions: 'Customer: {{visitor.name}}' } } });
  try {
    const good = { userId: 'user-42', userHash: identityHash(secret, 'user-42'), name: 'Nina' };
    const a = await w.visitor(good);
    assert.is(a.ready.verified, true);
    a.say('my order is 1234');
    await a.reply();
    assert.match(w.fake.lastBody('/chat/completions').messages[0].content, /Customer: Nina/);
    await a.close();

    // Same user on another device: the same history.
    const b = await w.visitor(good);
    assert.is(b.ready.visitorId, a.ready.visitorId);
    assert.is(b.ready.history.length, 2);
    await b.close();

    // A forged hash is an anonymous stranger, even when it carries the verified visitor's token.
    const forged = await w.visitor({ userId: 'user-42', userHash: identityHash('wrong', 'user-42'), visitorToken: a.ready.visitorToken });
    assert.is(forged.ready.verified, false);
    assert.is.not(forged.ready.visitorId, a.ready.visitorId);
    assert.equal(forged.ready.history, []);
    forged.say('hi');
    const conv = await forged.next('conversation');
    assert.is.not(conv.conversationId, a.ready.conversationId);
    await forged.reply();
    await forged.close();

    const missing = await w.visitor({ visitorToken: a.ready.visitorToken });
    assert.is.not(missing.ready.visitorId, a.ready.visitorId);
    assert.equal(missing.ready.history, []);
    await missing.close();
  } finally {
    await w.close();
  }
});

test('identity mode required refuses a visitor without a valid hash', async () => {
  const secret = 's3cret-value';
  const w = await startChatWorld({ identitySecret: secret, config: { security: { identity: { mode: 'required' } } } });
  try {
    assert.is((await w.tryConnect()).status, 401);
    assert.is((await w.tryConnect({ userId: 'u1', userHash: identityHash('nope', 'u1') })).status, 401);
    assert.is((await w.tryConnect({ userId: 'u1', userHash: identityHash(secret, 'u1') })).status, 101);
  } finally {
    await w.close();
  }
});

test('each server allows 30 chat connections a minute per IP', async () => {
  const w = await startChatWorld();
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await w.tryConnect()).status);
    assert.is(statuses.filter((s) => s === 101).length, 30);
    assert.is(statuses[30], 429);
  } finally {
    await w.close();
  }
});

test('new conversations past conversationsPerIpPerHour get rate_limited', async () => {
  const w = await startChatWorld({ config: { security: { rateLimits: { conversationsPerIpPerHour: 1 } } } });
  try {
    const v = await w.visitor();
    v.say('first');
    await v.reply();
    v.send({ t: 'new_conversation' });
    const ended = await v.next('ended');
    assert.is(ended.reason, 'visitor_new_conversation');
    await v.next('conversation', (f) => f.conversationId === null);
    v.say('second');
    const err = await v.next('error');
    assert.is(err.code, 'rate_limited');
    assert.match(err.message, /conversationsPerIpPerHour/);
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
