import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createToken, setupOwner } from '../helpers/auth.js';
import { startTestServer } from '../helpers/server.js';
import { harness } from './helpers.js';

async function rejects(fn: () => Promise<unknown>, pattern: RegExp, what = ''): Promise<void> {
  try { await fn(); } catch (err) { assert.match((err as Error).message, pattern, what); return; }
  assert.unreachable(`expected a rejection ${what}`);
}

async function apiHarness() {
  const h = await harness();
  const owner = await setupOwner(h.server);
  const token = await createToken(h.server, owner, ['webhooks:write']);
  const call = (method: string, path: string, body?: unknown) => h.server.request(method, `/api/v1/webhooks${path}`, { body, headers: token.headers });
  return { h, owner, token, call };
}

const signedWith = (secret: string, headers: Record<string, unknown>, body: string) => {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers['service-signature'])) ?? [];
  return v1 === createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
};

test('an endpoint is added with its secret once, then listed without it next to the event names', async () => {
  const { h, call } = await apiHarness();
  try {
    const added = await call('POST', '', { url: h.receiver.url, events: ['conversation.started', 'lead.captured'] });
    assert.is(added.status, 201);
    assert.match(added.body.secret, /^whsec_[A-Za-z0-9_-]{40,}$/);
    assert.is(added.body.active, true);
    assert.equal(added.body.events, ['conversation.started', 'lead.captured']);
    const list = await call('GET', '');
    assert.is(list.status, 200);
    assert.is(list.body.items.length, 1);
    assert.is(list.body.items[0].id, added.body.id);
    assert.not.ok(JSON.stringify(list.body).includes(added.body.secret), 'the secret is not shown again');
    assert.not.ok('secretSealed' in list.body.items[0]);
    assert.equal(list.body.events, ['conversation.started', 'conversation.ended', 'message.created', 'lead.captured',
      'handoff.requested', 'handoff.accepted', 'handoff.resolved', 'feedback.received']);
  } finally { await h.close(); }
});

test('access needs the webhooks:write scope', async () => {
  const { h, owner } = await apiHarness();
  try {
    assert.is((await h.server.request('GET', '/api/v1/webhooks')).status, 401);
    const reader = await createToken(h.server, owner, ['bots:read']);
    const r = await h.server.request('GET', '/api/v1/webhooks', { headers: reader.headers });
    assert.is(r.status, 403);
    assert.is(r.body.error.code, 'forbidden');
    assert.is((await h.server.request('GET', '/api/v1/webhooks', { headers: owner.headers })).status, 200, 'an admin session may');
  } finally { await h.close(); }
});

test('bad input names the field', async () => {
  const { h, call } = await apiHarness();
  try {
    let r = await call('POST', '', { url: h.receiver.url, events: ['conversation.started', 'bot.published'] });
    assert.is(r.status, 422);
    assert.match(r.body.error.message, /^events\.1: /);
    r = await call('POST', '', { url: h.receiver.url, events: [] });
    assert.match(r.body.error.message, /^events: /);
    r = await call('POST', '', { url: 'ftp://example.com/x', events: ['ping'] });
    assert.is(r.status, 422);
    r = await call('POST', '', { url: 'not a url', events: ['lead.captured'] });
    assert.is(r.status, 422);
    assert.match(r.body.error.message, /^url: /);
    r = await call('PATCH', '/whk_missing', { active: true });
    assert.is(r.status, 404);
  } finally { await h.close(); }
});

test('the whole life of an endpoint works through the API: test, log, rotate, redeliver, change, remove', async () => {
  const { h, call } = await apiHarness();
  try {
    const added = (await call('POST', '', { url: h.receiver.url, events: ['conversation.started'] })).body;
    const ping = await call('POST', `/${added.id}/test`);
    assert.is(ping.status, 202);
    await h.settle();
    assert.is(h.receiver.seen.length, 1);
    assert.is(JSON.parse(h.receiver.seen[0].body).type, 'ping');
    assert.ok(signedWith(added.secret, h.receiver.seen[0].headers, h.receiver.seen[0].body));

    const log = await call('GET', `/${added.id}/deliveries`);
    assert.is(log.status, 200);
    assert.is(log.body.items.length, 1);
    const d = log.body.items[0];
    assert.equal([d.state, d.statusCode, d.response, d.attempts, d.eventId, d.eventType], ['delivered', 200, 'ok', 1, ping.body.eventId, 'ping']);
    assert.type(d.createdAt, 'number');
    assert.type(d.lastAttemptAt, 'number');

    const rotated = await call('POST', `/${added.id}/secret`);
    assert.is(rotated.status, 200);
    assert.is.not(rotated.body.secret, added.secret);
    const again = await call('POST', `/deliveries/${d.id}/redeliver`);
    assert.is(again.status, 202);
    assert.is(again.body.redeliveryOf, d.id);
    await h.settle();
    const second = h.receiver.seen[1];
    assert.is(second.body, h.receiver.seen[0].body, 'same event id and body');
    assert.ok(signedWith(rotated.body.secret, second.headers, second.body), 'signed with the new secret');
    assert.not.ok(signedWith(added.secret, second.headers, second.body));

    const off = await call('PATCH', `/${added.id}`, { active: false, events: ['lead.captured', 'lead.captured'] });
    assert.is(off.status, 200);
    assert.equal([off.body.active, off.body.events], [false, ['lead.captured']]);

    assert.is((await call('DELETE', `/${added.id}`)).status, 204);
    assert.is((await call('GET', `/${added.id}/deliveries`)).status, 404);
    assert.is((await call('POST', `/deliveries/${d.id}/redeliver`)).status, 404);
    assert.is((await call('GET', '')).body.items.length, 0);
  } finally { await h.close(); }
});

test('the signing secret is stored encrypted', async () => {
  const { h, owner, call } = await apiHarness();
  try {
    const added = (await call('POST', '', { url: h.receiver.url, events: ['lead.captured'] })).body;
    const raw = await h.server.services.webhooks.dispatcher.endpoints.findById(owner.workspaceId, added.id);
    assert.ok(raw);
    assert.not.ok(JSON.stringify(raw).includes(added.secret.slice(6)));
    assert.match(raw!.secretSealed, /^v1:/);
  } finally { await h.close(); }
});

test('in production only https URLs are accepted', async () => {
  const server = await startTestServer({ config: { production: true } });
  try {
    const hooks = server.services.webhooks;
    await rejects(() => hooks.endpoints.add('ws_1', { url: 'http://127.0.0.1:9/hook', events: ['lead.captured'] }), /url: must use https/);
    const ok = await hooks.endpoints.add('ws_1', { url: 'https://127.0.0.1:9/hook', events: ['lead.captured'] });
    assert.is(ok.url, 'https://127.0.0.1:9/hook');
  } finally { await server.stop(); }
});

test('private targets are refused unless ALLOW_PRIVATE_NETWORK is set', async () => {
  const server = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK: 'false' } });
  try {
    const hooks = server.services.webhooks;
    for (const url of ['http://127.0.0.1:8080/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://localhost/hook', 'http://169.254.169.254/latest']) {
      await rejects(() => hooks.endpoints.add('ws_1', { url, events: ['lead.captured'] }), /url: .*not on the public internet/, url);
    }
  } finally { await server.stop(); }
});

test.run();
