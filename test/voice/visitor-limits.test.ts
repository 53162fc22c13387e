/**
 * Voice sessions at once per visitor and per address, across every bot of the server (VOICE_SESSIONS_PER_VISITOR,
 * default 2; VOICE_SESSIONS_PER_ADDRESS, default 4): one address cannot hold a paid engine session on each bot.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { identityHash } from '../../src/chat/identity.js';
import { sealSecret } from '../../src/security/secret-box.js';
import { newId } from '../../src/store/ids.js';
import type { ChatWorld, Visitor } from '../chat/helpers.js';
import { seen, startVoice, startVoiceWorld } from './world.js';

/** Another published bot of the same workspace, with the same settings (and identity secret, when given). */
async function addBot(w: ChatWorld, secret?: string): Promise<string> {
  const { app } = w.server;
  const bot = await app.store.collection('bots').findById(w.workspaceId, w.botId) as any;
  const id = newId('bot');
  await app.store.collection('bots').insertOne({ ...bot, _id: id, name: `Bot ${id}`, ...(secret ? { identitySecretSealed: sealSecret(secret, app.secretKey, id) } : {}) } as any);
  return id;
}

async function stop(v: Visitor) {
  v.send({ t: 'voice_stop' });
  await seen(v, 'voice', (f) => f.state === 'ended');
}

test('one address holds at most 4 voice sessions at once across all bots; a fifth bot is refused, another address is not', async () => {
  const w = await startVoiceWorld({ env: { TRUST_PROXY: 'true' } });
  try {
    const bots = [w.botId, ...(await Promise.all([1, 2, 3, 4].map(() => addBot(w))))];
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const talking: Visitor[] = [];
    for (const botId of bots.slice(0, 4)) {
      const v = await w.visitor({ botId }, from('203.0.113.7'));
      assert.is((await startVoice(v)).state, 'listening', `bot ${botId}`);
      talking.push(v);
    }
    const fifth = await w.visitor({ botId: bots[4] }, from('203.0.113.7'));
    fifth.send({ t: 'voice_start' });
    const err = await fifth.next('error');
    assert.is(err.code, 'rate_limited');
    assert.is(err.limit, 'address');
    assert.match(err.message, /4 voice conversations? from this address at once \(VOICE_SESSIONS_PER_ADDRESS\)/);
    assert.not.ok(fifth.frames.some((f) => f.t === 'voice'), 'no session was started');
    // Another address (another household) is not held back by the first.
    const other = await w.visitor({ botId: bots[4] }, from('198.51.100.20'));
    assert.is((await startVoice(other)).state, 'listening');
    // A seat given back is free at once.
    await stop(talking[0]);
    assert.is((await startVoice(fifth)).state, 'listening');
    for (const v of [...talking.slice(1), fifth, other]) await stop(v);
    await Promise.all([...talking, fifth, other].map((v) => v.close()));
  } finally {
    await w.close();
  }
});

test('IPv6 addresses count by their /64 network (one household\'s prefix)', async () => {
  const w = await startVoiceWorld({ env: { TRUST_PROXY: 'true', VOICE_SESSIONS_PER_ADDRESS: '1' } });
  try {
    const a = await w.visitor({}, { 'x-forwarded-for': '2001:db8:1:2::10' });
    assert.is((await startVoice(a)).state, 'listening');
    const b = await w.visitor({}, { 'x-forwarded-for': '2001:db8:1:2:aaaa::99' });
    b.send({ t: 'voice_start' });
    assert.is((await b.next('error')).limit, 'address');
    const c = await w.visitor({}, { 'x-forwarded-for': '2001:db8:1:3::10' });
    assert.is((await startVoice(c)).state, 'listening', 'another /64');
    await stop(a); await stop(c);
    await Promise.all([a, b, c].map((v) => v.close()));
  } finally {
    await w.close();
  }
});

test('one visitor holds at most 2 voice sessions at once, also across bots (a signed-in visitor is the same on each)', async () => {
  const secret = 'visitor-identity-secret-0123456789';
  const w = await startVoiceWorld({ identitySecret: secret, config: { security: { identity: { mode: 'optional' } } }, env: { TRUST_PROXY: 'true' } });
  try {
    const other = await addBot(w, secret);
    const user = { userId: 'customer-42', userHash: identityHash(secret, 'customer-42') };
    // Each socket from its own address, so only the visitor's own limit can refuse.
    const tab1 = await w.visitor(user, { 'x-forwarded-for': '203.0.113.1' });
    const tab2 = await w.visitor({ ...user, botId: other }, { 'x-forwarded-for': '203.0.113.2' });
    const tab3 = await w.visitor(user, { 'x-forwarded-for': '203.0.113.3' });
    assert.is(tab1.ready.visitorId, tab2.ready.visitorId, 'the same visitor on both bots');
    assert.is((await startVoice(tab1)).state, 'listening');
    assert.is((await startVoice(tab2)).state, 'listening');
    tab3.send({ t: 'voice_start' });
    const err = await tab3.next('error');
    assert.is(err.code, 'rate_limited');
    assert.is(err.limit, 'visitor');
    assert.match(err.message, /already in 2 voice conversations? at once \(VOICE_SESSIONS_PER_VISITOR\)/);
    // Another visitor from the same address as tab3 is not held back.
    const someoneElse = await w.visitor({}, { 'x-forwarded-for': '203.0.113.3' });
    assert.is((await startVoice(someoneElse)).state, 'listening');
    await stop(tab2);
    assert.is((await startVoice(tab3)).state, 'listening', 'a tab that ended voice gives its seat back');
    for (const v of [tab1, tab3, someoneElse]) await stop(v);
    await Promise.all([tab1, tab2, tab3, someoneElse].map((v) => v.close()));
  } finally {
    await w.close();
  }
});

test('the limits are set by environment variables; 0 turns one off', async () => {
  const w = await startVoiceWorld({ env: { VOICE_SESSIONS_PER_VISITOR: '0', VOICE_SESSIONS_PER_ADDRESS: '0' } });
  try {
    assert.is(w.server.app.config.voiceSessionsPerVisitor, 0);
    const first = await w.visitor();
    const tabs = [first, ...(await Promise.all([1, 2, 3, 4].map(() => w.visitor({ visitorToken: first.ready.visitorToken }))))];
    for (const v of tabs) assert.is((await startVoice(v)).state, 'listening', 'no per-visitor or per-address limit');
    for (const v of tabs) await stop(v);
    await Promise.all(tabs.map((v) => v.close()));
  } finally {
    await w.close();
  }
});

test.run();
