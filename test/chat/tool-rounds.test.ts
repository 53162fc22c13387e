import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LINES } from '../../actors/conversation/reply.js';
import { startChatWorld } from './helpers.js';

test('a model that asks for tools every round is offered them maxToolRounds times, and the visitor still gets a line', async () => {
  const w = await startChatWorld({ config: { brain: { maxToolRounds: 2 } } });
  try {
    const v = await w.visitor();
    const call = { name: 'lookup_order', arguments: { id: '42' } };
    w.fake.script([{ toolCalls: [call] }, { toolCalls: [call] }, { toolCalls: [call] }]);
    const before = w.fake.requests.length;
    v.say('where is my order?');
    const line = await v.next('message', (f) => f.message.role === 'system_event');
    assert.is(line.message.text, LINES.empty);
    const calls = w.fake.requests.slice(before).filter((r) => r.path.includes('/chat/completions'));
    assert.equal(calls.map((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0), [true, true, false]);
    const toolCalls = await w.server.app.store.collection<any>('tool_calls').find({ workspaceId: w.workspaceId });
    assert.is(toolCalls.length, 2);
    assert.ok(!v.frames.some((f) => f.t === 'message' && f.message.role === 'assistant'), 'no empty assistant message');
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
