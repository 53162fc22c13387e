import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld } from '../chat/helpers.js';
import { until } from '../helpers/until.js';

// feedback_ok reaches the widget just before feedback.received is published: read the summary once it has counted it.
function summaryWhen(w: Awaited<ReturnType<typeof startChatWorld>>, counted: (s: any) => boolean): Promise<any> {
  return until(async () => (await w.server.request('GET', '/api/v1/analytics/summary', { headers: w.owner.headers })).body, { ok: counted, interval: 20, message: 'the analytics summary counting the rating' });
}

test('a replaced rating is counted once: analytics equal the current thumbs and CSAT of the conversations', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    v.say('hello');
    const reply = (await v.reply()).message;
    v.send({ t: 'feedback', messageId: reply.id, value: 1 });
    await v.next('feedback_ok');
    v.send({ t: 'feedback', messageId: reply.id, value: -1 });
    await v.next('feedback_ok');
    v.send({ t: 'new_conversation' });
    await v.next('conversation', (f) => f.conversationId === null);
    const summary0 = await summaryWhen(w, (s) => s.feedback.thumbsDown === 1);
    assert.equal(summary0.feedback.thumbsUp, 0, 'the thumbs up was replaced');
    assert.equal(summary0.feedback.thumbsDown, 1);
    await v.close();

    const c = await w.visitor();
    c.say('hi');
    await c.reply();
    const conv = (c.frames.find((f) => f.t === 'conversation')).conversationId;
    await w.server.request('POST', `/api/v1/conversations/${conv}/close`, { headers: w.owner.headers });
    await c.next('ended');
    c.send({ t: 'csat', value: 3 });
    await c.next('feedback_ok');
    c.send({ t: 'csat', value: 1 });
    await c.next('feedback_ok');
    const summary = await summaryWhen(w, (s) => s.feedback.csatAverage === 1);
    assert.is(summary.feedback.csatCount, 1, 'one rating, the current one');
    assert.is(summary.feedback.csatAverage, 1);
    await c.close();
  } finally {
    await w.close();
  }
});

test.run();
