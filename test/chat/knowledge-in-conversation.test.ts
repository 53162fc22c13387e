import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ingestionIdle } from '../knowledge/helpers.js';
import { startChatWorld } from './helpers.js';

test('the agent answers from the knowledge base and the reply carries its citations', async () => {
  const w = await startChatWorld();
  try {
    const src = await w.server.request('POST', '/api/v1/knowledge', {
      body: { kind: 'text', name: 'Shipping policy', text: '# Shipping\n\nOrders ship within 2 business days. Express delivery to Norway takes 3 days.' },
      headers: w.owner.headers,
    });
    assert.is(src.status, 201, JSON.stringify(src.body));
    await ingestionIdle(w.server.app);
    const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
    const config = { ...bot.published.config, knowledge: { ...bot.published.config.knowledge, sourceIds: [src.body.id], mode: 'auto' } };
    await w.setBot({ 'published.config': config, draft: config, updatedAt: Date.now() + 1 });

    const v = await w.visitor();
    w.fake.script([{ text: 'Express delivery to Norway takes 3 days.' }]);
    v.say('How long does express delivery to Norway take?');
    // The question's embedding may be the first in a worker thread that has not loaded the built-in model yet
    // (seconds on a busy machine): the reply is given longer than a plain one.
    const { message } = await v.reply(20_000);
    // A citation names the document (its own title: the first heading) and the source it came from.
    assert.equal(message.citations?.map((c: any) => [c.title, c.sourceId]), [['Shipping policy', src.body.id]]);
    const system = JSON.stringify(w.fake.lastBody('chat/completions').messages[0]);
    assert.ok(system.includes('Express delivery to Norway takes 3 days'), 'the excerpt reached the model');
    assert.ok(/untrusted/i.test(system), 'marked as untrusted reference data');
    // Citations are the widget's: message.created (live socket and webhooks) carries exactly the spec's message.
    const events = await w.server.app.store.collection<any>('events').find({ workspaceId: w.workspaceId, type: 'message.created' });
    const event = events.find((e) => e.data.message.id === message.id);
    assert.equal(Object.keys(event.data.message).sort(), ['attachments', 'authorName', 'createdAt', 'id', 'modality', 'role', 'seq', 'text', 'visibility']);
    await v.close();
  } finally { await w.close(); }
});

test.run();
