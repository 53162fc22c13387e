import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld } from './helpers.js';

test('a visitor chats with a kind B bot: deltas stream in order, then the reply is stored', async () => {
  const w = await startChatWorld({ kind: 'openai', config: { welcome: { message: 'Hello from {{agent.name}}' } } });
  try {
    const v = await w.visitor();
    assert.is(v.ready.welcome.message, 'Hello from Ava');
    assert.is(v.ready.conversationId, null);
    w.fake.script({ text: ['Hi ', 'there, ', 'how can I help?'] });
    v.say('Hello!', { clientId: 'c1' });
    const conv = await v.next('conversation');
    const mine = await v.next('message', (f) => f.message.role === 'user');
    assert.is(mine.clientId, 'c1');
    assert.is(mine.message.seq, 1);
    const { message, deltas } = await v.reply();
    assert.equal(deltas, ['Hi ', 'there, ', 'how can I help?']);
    assert.is(message.text, 'Hi there, how can I help?');
    assert.is(message.seq, 2);
    const got = await w.server.request('GET', `/api/v1/conversations/${conv.conversationId}`, { headers: w.owner.headers });
    assert.is(got.status, 200);
    assert.equal(got.body.messages.map((m: any) => m.role), ['user', 'assistant']);
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
