import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chattingVisitor, startTeamWorld } from '../team/helpers.js';

const MESSAGE_FIELDS = ['attachments', 'authorName', 'createdAt', 'id', 'modality', 'role', 'seq', 'text', 'visibility'];

test('the live socket sees the agent go thinking then idle, and message.created carries exactly the spec message', async () => {
  const w = await startTeamWorld();
  try {
    const live = await w.live(w.owner);
    await live.event('hello');
    const { conversationId } = await chattingVisitor(w, 'hi there');
    await live.event('agent.status', (d) => d.conversationId === conversationId && d.state === 'thinking');
    await live.event('agent.status', (d) => d.conversationId === conversationId && d.state === 'idle');
    const created = await live.event('message.created', (d) => d.conversationId === conversationId && d.message.role === 'assistant');
    assert.equal(Object.keys(created.data.message).sort(), MESSAGE_FIELDS);
  } finally {
    await w.stop();
  }
});

test.run();
