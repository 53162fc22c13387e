import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openIdentitySecret } from '../../src/bots/records.js';
import { createPreviewToken, PREVIEW_TOKEN_TTL_MS, verifyPreviewToken } from '../../src/bots/preview-token.js';
import { createToken } from '../helpers/auth.js';
import { startWorld, type World } from './setup.js';

let w: World;
let bot: any;
test.before(async () => {
  w = await startWorld();
  await w.connectOpenAI();
  bot = (await w.as('POST', '/api/v1/bots', { name: 'Secretive' })).body;
});
test.after(async () => { await w.close(); });

const record = () => w.server.app.store.collection<any>('bots').findById(w.owner.workspaceId, bot.id);

test('an identity secret is returned once and stored sealed', async () => {
  assert.is(bot.hasIdentitySecret, false);
  const r = await w.as('POST', `/api/v1/bots/${bot.id}/identity-secret`);
  assert.is(r.status, 200);
  const secret = r.body.secret;
  assert.type(secret, 'string');
  assert.ok(secret.length >= 40);
  const view = await w.as('GET', `/api/v1/bots/${bot.id}`);
  assert.is(view.body.hasIdentitySecret, true);
  assert.not.ok(JSON.stringify(view.body).includes(secret), 'never shown again');
  const doc = await record();
  assert.not.ok(JSON.stringify(doc).includes(secret), 'not stored in plain text');
  assert.is(openIdentitySecret(w.server.app, doc), secret);
});

test('a new identity secret replaces the old one', async () => {
  const first = (await w.as('POST', `/api/v1/bots/${bot.id}/identity-secret`)).body.secret;
  const second = (await w.as('POST', `/api/v1/bots/${bot.id}/identity-secret`)).body.secret;
  assert.is.not(first, second);
  assert.is(openIdentitySecret(w.server.app, await record()), second);
});

test('a preview token names the bot and expires after 30 minutes', async () => {
  const r = await w.as('POST', `/api/v1/bots/${bot.id}/preview`);
  assert.is(r.status, 200);
  assert.is(r.body.expiresAt, w.clock.now() + PREVIEW_TOKEN_TTL_MS);
  const seen = verifyPreviewToken(w.server.app, r.body.token);
  assert.is(seen.botId, bot.id);
  assert.is(seen.workspaceId, w.owner.workspaceId);
  await w.clock.advance(PREVIEW_TOKEN_TTL_MS - 1000);
  assert.is(verifyPreviewToken(w.server.app, r.body.token).botId, bot.id);
  await w.clock.advance(1000);
  assert.throws(() => verifyPreviewToken(w.server.app, r.body.token), (e: any) => e.status === 401 && /expired/.test(e.message));
});

test('a changed or foreign preview token is refused', async () => {
  const { token } = createPreviewToken(w.server.app, w.owner.workspaceId, bot.id);
  const [payload, mac] = token.slice(4).split('.');
  const forged = Buffer.from(JSON.stringify({ b: 'bot_other', w: w.owner.workspaceId, e: w.clock.now() + 1e9 })).toString('base64url');
  for (const bad of [`bpv_${forged}.${mac}`, `bpv_${payload}.${mac.slice(0, -2)}xx`, 'bpv_', 'sct_abc', `${token}.x`]) {
    assert.throws(() => verifyPreviewToken(w.server.app, bad), (e: any) => e.status === 401, bad);
  }
});

test('a viewer token may ask for a preview but not for a secret', async () => {
  const viewer = await createToken(w.server, w.owner, ['bots:read']);
  assert.is((await w.server.request('POST', `/api/v1/bots/${bot.id}/preview`, { headers: viewer.headers })).status, 200);
  assert.is((await w.server.request('POST', `/api/v1/bots/${bot.id}/identity-secret`, { headers: viewer.headers })).status, 403);
});

test('embed gives the loader URL, the bot id and a snippet per layout', async () => {
  const r = await w.as('GET', `/api/v1/bots/${bot.id}/embed`);
  assert.is(r.status, 200);
  const { publicUrl } = w.server.app.config;
  assert.is(r.body.scriptUrl, `${publicUrl}/static/widget/loader.js`);
  assert.is(r.body.botId, bot.id);
  assert.is(r.body.layout, 'panel');
  assert.equal(Object.keys(r.body.snippets).sort(), ['drawer', 'floating', 'inline', 'panel']);
  for (const s of Object.values<string>(r.body.snippets)) {
    assert.ok(s.includes(`src="${publicUrl}/static/widget/loader.js"`));
    assert.ok(s.includes(`data-bot-id="${bot.id}"`));
  }
  assert.not.ok(r.body.snippets.panel.includes('data-layout'), 'the configured layout needs no attribute');
  assert.ok(r.body.snippets.drawer.includes('data-layout="drawer"'));
  assert.match(r.body.snippets.inline, /<div id="chat-agent-[^"]+"[^>]*><\/div>\n<script [^>]*data-layout="inline" data-target="#chat-agent-/);
});

test('unknown bots give 404 on every bot endpoint', async () => {
  for (const [m, p] of [['GET', ''], ['POST', '/preview'], ['GET', '/embed'], ['POST', '/identity-secret'], ['GET', '/versions'], ['POST', '/publish']]) {
    const r = await w.as(m, `/api/v1/bots/bot_missing${p}`, m === 'POST' ? {} : undefined);
    assert.is(r.status, 404, `${m} ${p}`);
  }
});

test.run();
