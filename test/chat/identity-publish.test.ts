import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { identityHash } from '../../src/chat/identity.js';
import { startChatWorld } from './helpers.js';

const secret = 'identity-secret-for-tests';

async function publish(w: Awaited<ReturnType<typeof startChatWorld>>, patch: Record<string, unknown>) {
  // The world's bot was stored as version 1 without a versions record; publishing numbers from the records kept.
  await w.setBot({ published: null });
  const bot = await w.server.request('GET', `/api/v1/bots/${w.botId}`, { headers: w.owner.headers });
  const edited = await w.server.request('PATCH', `/api/v1/bots/${w.botId}`, { headers: w.owner.headers, body: { revision: bot.body.revision, patch } });
  assert.is(edited.status, 200, JSON.stringify(edited.body));
  const r = await w.server.request('POST', `/api/v1/bots/${w.botId}/publish`, { headers: w.owner.headers, body: { revision: edited.body.revision } });
  assert.is(r.status, 200, JSON.stringify(r.body));
}

test('publishing identity mode required ends open chats of visitors without a verified identity, and only those', async () => {
  const w = await startChatWorld({ identitySecret: secret, config: { security: { identity: { mode: 'optional' } } } });
  try {
    const anonymous = await w.visitor();
    const verified = await w.visitor({ userId: 'u-1', userHash: identityHash(secret, 'u-1') });
    assert.is(verified.ready.verified, true);
    const closed = new Promise<number>((resolve) => anonymous.ws.once('close', (code) => resolve(code)));
    await publish(w, { security: { identity: { mode: 'required' } } });
    const err = await anonymous.next('error');
    assert.is(err.code, 'unauthorized');
    assert.match(err.message, /sign in/);
    assert.is(await closed, 4401);
    // The verified visitor's chat goes on, now with the new version.
    w.fake.script({ text: 'Still here.' });
    verified.say('hello');
    assert.is((await verified.reply()).message.text, 'Still here.');
    await verified.close();
  } finally {
    await w.close();
  }
});

test('an open chat starts its next conversation with the newly published version', async () => {
  const w = await startChatWorld({ config: { identity: { agentName: 'Ava' } } });
  try {
    const v = await w.visitor();
    await publish(w, { identity: { agentName: 'Bea' } });
    // No signal tells the test that the publish reached the open chat (src/chat/published-watch.ts sends nothing
    // when the version changes), so it gives the watch a moment; see "Waiting for something" in docs/development.md.
    // eslint-disable-next-line no-restricted-syntax
    await new Promise((r) => setTimeout(r, 100));
    v.say('who are you?');
    await v.reply();
    const body = w.fake.lastBody('/chat/completions');
    assert.match(JSON.stringify(body.messages[0]), /You are Bea/);
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
