import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld } from './helpers.js';

test('text, a tool round and more text make two paragraphs in the stream and in the stored message', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    w.fake.script([
      { text: 'Let me check.', toolCalls: [{ name: 'lookup_weather', arguments: { city: 'Oslo' } }] },
      { text: ' It is 21C in Oslo.' },
    ]);
    v.say('how warm is it in Oslo?');
    const reply = await v.next('message', (f) => f.message.role === 'assistant');
    assert.is(reply.message.text, 'Let me check.\n\nIt is 21C in Oslo.');
    // The break is streamed too, so the widget shows what will be stored.
    const deltas = v.frames.filter((f) => f.t === 'delta' && f.messageId === reply.message.id).map((f) => f.delta).join('');
    assert.is(deltas, reply.message.text);
    const stored = await w.server.app.store.collection<any>('messages').find({ workspaceId: w.workspaceId, role: 'assistant' });
    assert.equal(stored.map((m) => m.text), ['Let me check.\n\nIt is 21C in Oslo.']);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a reply whose first round is only a tool call starts with its text, without a leading break', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    w.fake.script([{ toolCalls: [{ name: 'lookup_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 21C.' }]);
    v.say('weather?');
    const reply = await v.next('message', (f) => f.message.role === 'assistant');
    assert.is(reply.message.text, 'It is 21C.');
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
