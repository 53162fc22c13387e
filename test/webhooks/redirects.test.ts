import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { harness, publish, WS, type Harness } from './helpers.js';

/** /r/<n> redirects to /r/<n-1> with `status`; /r/0 answers 200 (the final URL). */
function redirectChain(h: Harness, status: number) {
  h.receiver.handle = (req, res) => {
    const n = Number(/^\/r\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    if (n > 0) res.writeHead(status, { location: `/r/${n - 1}` }).end();
    else res.writeHead(200).end('final');
  };
}

test('three redirects are followed to the final URL', async () => {
  const h = await harness();
  try {
    redirectChain(h, 307);
    const { id } = await h.hooks.endpoints.add(WS, { url: `${h.receiver.origin}/r/3`, events: ['conversation.started'] });
    const event = await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    assert.equal(h.receiver.seen.map((s) => s.url), ['/r/3', '/r/2', '/r/1', '/r/0']);
    const final = h.receiver.seen[3];
    assert.is(final.method, 'POST', '307 keeps the method and body');
    assert.is(JSON.parse(final.body).id, event._id);
    assert.is(final.headers['service-event-id'], event._id);
    const [d] = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(d.state, 'delivered');
    assert.is(d.response, 'final');
  } finally { await h.close(); }
});

test('a fourth redirect is refused and counts as a failure', async () => {
  const h = await harness();
  try {
    redirectChain(h, 307);
    const { id } = await h.hooks.endpoints.add(WS, { url: `${h.receiver.origin}/r/4`, events: ['conversation.started'] });
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    assert.equal(h.receiver.seen.map((s) => s.url), ['/r/4', '/r/3', '/r/2', '/r/1'], 'the fourth redirect is not followed');
    const [d] = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(d.state, 'retrying');
    assert.match(d.error ?? '', /more than 3 redirects/);
    assert.is((await h.hooks.endpoints.get(WS, id)).consecutiveFailures, 1);
  } finally { await h.close(); }
});

test('a 302 turns the POST into a GET without a body', async () => {
  const h = await harness();
  try {
    redirectChain(h, 302);
    const { id } = await h.hooks.endpoints.add(WS, { url: `${h.receiver.origin}/r/1`, events: ['conversation.started'] });
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    assert.equal(h.receiver.seen.map((s) => `${s.method} ${s.url}`), ['POST /r/1', 'GET /r/0']);
    assert.is(h.receiver.seen[1].body, '');
    assert.is(h.receiver.seen[1].headers['content-type'], undefined);
    const [d] = (await h.hooks.endpoints.deliveries(WS, id)).items;
    assert.is(d.state, 'delivered', 'the final GET answered 200');
  } finally { await h.close(); }
});

test('a 301 also turns the POST into a GET', async () => {
  const h = await harness();
  try {
    redirectChain(h, 301);
    await h.hooks.endpoints.add(WS, { url: `${h.receiver.origin}/r/1`, events: ['conversation.started'] });
    await publish(h, 'conversation.started', { visitorId: 'vis_1' });
    await h.settle();
    assert.equal(h.receiver.seen.map((s) => s.method), ['POST', 'GET']);
  } finally { await h.close(); }
});

test.run();
