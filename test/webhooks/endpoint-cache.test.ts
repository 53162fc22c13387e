import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { harness, publish, WS } from './helpers.js';

// The dispatcher keeps each workspace's active endpoints in memory; every change must be seen at once.

test('an endpoint added after events were published receives the later events', async () => {
  const h = await harness();
  try {
    await publish(h, 'conversation.started', { visitorId: 'v1' });
    await h.settle();
    assert.is(h.receiver.seen.length, 0, 'no endpoint yet');
    await h.hooks.endpoints.add(WS, { url: h.receiver.url, events: ['conversation.started'] });
    const evt = await publish(h, 'conversation.started', { visitorId: 'v2' });
    await h.settle();
    assert.is(h.receiver.seen.length, 1);
    assert.is(JSON.parse(h.receiver.seen[0].body).id, evt._id);
  } finally { await h.close(); }
});

test('changing the events of an endpoint, switching it off and deleting it take effect for the next event', async () => {
  const h = await harness();
  try {
    const ep = await h.hooks.endpoints.add(WS, { url: h.receiver.url, events: ['conversation.started'] });
    await h.hooks.endpoints.update(WS, ep.id, { events: ['lead.captured'] });
    await publish(h, 'conversation.started', { visitorId: 'v1' });
    await publish(h, 'lead.captured', { leadId: 'lead_1', fields: {} });
    await h.settle();
    assert.equal(h.receiver.seen.map((s) => s.headers['service-event']), ['lead.captured']);
    await h.hooks.endpoints.update(WS, ep.id, { active: false });
    await publish(h, 'lead.captured', { leadId: 'lead_2', fields: {} });
    await h.settle();
    assert.is(h.receiver.seen.length, 1, 'switched off');
    await h.hooks.endpoints.update(WS, ep.id, { active: true });
    await h.hooks.endpoints.remove(WS, ep.id);
    await publish(h, 'lead.captured', { leadId: 'lead_3', fields: {} });
    await h.settle();
    assert.is(h.receiver.seen.length, 1, 'deleted');
  } finally { await h.close(); }
});

test.run();
