/** The webhook request: body, headers and the `t=<unix seconds>,v1=<hex>` signature (service-api.md, Signature). */
import { createHmac } from 'node:crypto';
import type { EventRecord } from '../../app/event-bus.js';
import { USER_AGENT } from './constants.js';

/** Lowercase hex HMAC-SHA256 with the secret as key over `<t>.<raw body>`. */
export function signatureV1(secret: string, timestampSec: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestampSec}.`).update(rawBody).digest('hex');
}

export function signatureHeader(secret: string, timestampSec: number, rawBody: string | Buffer): string {
  return `t=${timestampSec},v1=${signatureV1(secret, timestampSec, rawBody)}`;
}

/** The JSON body: the same bytes on every try and redelivery (only the signature's timestamp changes). */
export function webhookBody(event: Pick<EventRecord, '_id' | 'type' | 'createdAt' | 'data'>): string {
  return JSON.stringify({ id: event._id, type: event.type, createdAt: new Date(event.createdAt).toISOString(), data: event.data });
}

export function webhookHeaders(event: Pick<EventRecord, '_id' | 'type'>, secret: string, nowMs: number, rawBody: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'Service-Event': event.type,
    'Service-Event-Id': event._id,
    'Service-Signature': signatureHeader(secret, Math.floor(nowMs / 1000), rawBody),
  };
}
