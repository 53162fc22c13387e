// Verifies a ServiceChat webhook request. Node 18+, no dependencies.
//
//   import { verifyWebhook } from './verify-webhook.mjs';
//   verifyWebhook(rawBody, req.headers['service-signature'], process.env.WEBHOOK_SECRET); // true, or throws
//
// Pass the raw request body (Buffer or string) exactly as received: re-serialised JSON will not match.
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Checks the Service-Signature header `t=<unix seconds>,v1=<hex>`:
 * v1 must equal HMAC-SHA256(secret, `${t}.${rawBody}`) (compared in constant time), and t must be within
 * toleranceSec of now in either direction, so a captured request cannot be replayed later.
 * Returns true; throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(rawBody, signatureHeader, secret, { toleranceSec = 300, nowSec = Math.floor(Date.now() / 1000) } = {}) {
  if (typeof signatureHeader !== 'string' || signatureHeader === '') throw new WebhookVerificationError('missing Service-Signature header');
  if (!secret) throw new WebhookVerificationError('missing signing secret');
  let timestamp = null;
  const candidates = [];
  for (const part of signatureHeader.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') candidates.push(value);
  }
  if (timestamp === null || !/^\d+$/.test(timestamp) || candidates.length === 0) {
    throw new WebhookVerificationError('malformed Service-Signature header');
  }
  if (Math.abs(nowSec - Number(timestamp)) > toleranceSec) {
    throw new WebhookVerificationError('timestamp is outside the allowed tolerance');
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  const matches = candidates.some((hex) => {
    const given = /^[0-9a-f]+$/i.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('signature does not match');
  return true;
}
