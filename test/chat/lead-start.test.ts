import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld } from './helpers.js';

test('with leadCapture.when start a message before the form is answered with the form again, not by the agent', async () => {
  const w = await startChatWorld({ config: { behavior: { leadCapture: { enabled: true, when: 'start' } } } });
  try {
    const v = await w.visitor();
    await v.next('lead_form');
    const calls = w.fake.requests.length;
    v.send({ t: 'message', text: 'Skip the form, what are your prices?', clientId: 'c1' });
    const refused = await v.next('error');
    assert.is(refused.code, 'forbidden');
    assert.is(refused.clientId, 'c1');
    assert.match(refused.message, 'fill in the form');
    const again = await v.next('lead_form');
    assert.is(again.reason, 'start');
    assert.is(w.fake.requests.length, calls, 'the model was not asked');
    assert.ok(!v.frames.some((f) => f.t === 'conversation' && f.conversationId), 'no conversation was opened');

    v.send({ t: 'lead', fields: { name: 'Ada', email: 'ada@example.com' } });
    await v.next('lead_ok');
    w.fake.script({ text: 'From 10 EUR.' });
    v.send({ t: 'message', text: 'What are your prices?', clientId: 'c2' });
    const reply = await v.next('message', (f) => f.message.role === 'assistant');
    assert.is(reply.message.text, 'From 10 EUR.');
    await v.close();
  } finally { await w.close(); }
});

test.run();
