import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kernel/errors.js';
import { callRoute, harness, publish, WS } from './helpers.js';

const DAY_MS = 24 * 3600_000;

test('events are kept a week: an 8-day-old event is pruned, a 6-day-old one stays', async () => {
  const h = await harness();
  try {
    const old = await publish(h, 'conversation.started', { visitorId: 'vis_old' });
    await h.advance(2 * DAY_MS);
    const recent = await publish(h, 'conversation.started', { visitorId: 'vis_recent' });
    await h.advance(6 * DAY_MS);
    const events = h.server.app.events.collection;
    assert.is(await events.findById(WS, old._id), null, 'the 8-day-old event is gone');
    assert.ok(await events.findById(WS, recent._id), 'the 6-day-old event stays');
  } finally { await h.close(); }
});

test('redelivering a delivery whose event was pruned answers 409', async () => {
  const h = await harness();
  try {
    const endpoint = await h.hooks.endpoints.add(WS, { url: h.receiver.url, events: ['conversation.started'] });
    const old = await publish(h, 'conversation.started', { visitorId: 'vis_old' });
    await h.settle();
    const [delivery] = (await h.hooks.endpoints.deliveries(WS, endpoint.id)).items;
    assert.is(delivery.eventId, old._id);
    assert.is(delivery.state, 'delivered');
    await h.advance(8 * DAY_MS);
    assert.is(await h.server.app.events.collection.findById(WS, old._id), null);
    try {
      await callRoute(h, 'POST /api/v1/webhooks/deliveries/{id}/redeliver', { params: { id: delivery.id } });
      assert.unreachable('the redelivery should be refused');
    } catch (err) {
      assert.instance(err, ApiError);
      assert.is((err as ApiError).status, 409);
    }
    assert.is(h.receiver.seen.length, 1, 'nothing more was sent');
  } finally { await h.close(); }
});

test.run();
