import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { harness, publish, WS } from './helpers.js';

type Verify = (rawBody: string | Buffer, header: string | undefined, secret: string, opts?: { toleranceSec?: number; nowSec?: number }) => boolean;
const examplePath = fileURLToPath(new URL('../../docs/examples/verify-webhook.mjs', import.meta.url));
const { verifyWebhook } = (await import(pathToFileURL(examplePath).href)) as { verifyWebhook: Verify };

/** One real request from the sender, as a receiver sees it. */
async function realRequest() {
  const h = await harness();
  try {
    const { secret } = await h.hooks.endpoints.add(WS, { url: h.receiver.url, events: ['lead.captured'] });
    await publish(h, 'lead.captured', { leadId: 'lead_1', fields: { name: 'Zoë Ünal', note: 'multi-byte ✓' } });
    await h.settle();
    const seen = h.receiver.seen[0];
    const header = String(seen.headers['service-signature']);
    const t = Number(/^t=(\d+),/.exec(header)![1]);
    return { secret, header, t, body: seen.body, nowSec: Math.floor(h.clock.now() / 1000) };
  } finally { await h.close(); }
}

const req = await realRequest();

function throwsWith(fn: () => unknown, pattern: RegExp) {
  assert.throws(fn, (err: Error) => err.name === 'WebhookVerificationError' && pattern.test(err.message));
}

test('a genuine request verifies, as text or raw bytes', () => {
  assert.is(req.t, req.nowSec);
  assert.is(verifyWebhook(req.body, req.header, req.secret, { nowSec: req.t }), true);
  assert.is(verifyWebhook(Buffer.from(req.body, 'utf8'), req.header, req.secret, { nowSec: req.t + 300 }), true);
  assert.is(verifyWebhook(req.body, req.header, req.secret, { nowSec: req.t - 300 }), true);
});

test('a bad signature is rejected', () => {
  const v1 = req.header.split('v1=')[1];
  const flipped = req.header.replace(v1, (v1[0] === 'a' ? 'b' : 'a') + v1.slice(1));
  throwsWith(() => verifyWebhook(req.body, flipped, req.secret, { nowSec: req.t }), /does not match/);
  throwsWith(() => verifyWebhook(req.body.replace('lead_1', 'lead_2'), req.header, req.secret, { nowSec: req.t }), /does not match/);
  throwsWith(() => verifyWebhook(req.body, `t=${req.t},v1=zz`, req.secret, { nowSec: req.t }), /does not match/);
  throwsWith(() => verifyWebhook(req.body, 'garbage', req.secret, { nowSec: req.t }), /malformed/);
  throwsWith(() => verifyWebhook(req.body, undefined, req.secret, { nowSec: req.t }), /missing/);
});

test('a wrong secret is rejected', () => {
  throwsWith(() => verifyWebhook(req.body, req.header, 'whsec_not-the-right-one', { nowSec: req.t }), /does not match/);
});

test('a timestamp more than five minutes off in either direction is rejected', () => {
  throwsWith(() => verifyWebhook(req.body, req.header, req.secret, { nowSec: req.t + 301 }), /tolerance/);
  throwsWith(() => verifyWebhook(req.body, req.header, req.secret, { nowSec: req.t - 301 }), /tolerance/);
});

test.run();
