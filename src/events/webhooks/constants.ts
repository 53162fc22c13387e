/** Webhook rules from service-api.md (Webhook events, Delivery and retries, Limits), in one place. */

/** Events an endpoint can subscribe to. `ping` is not subscribable: only the test operation sends it. */
export const WEBHOOK_EVENTS = [
  'conversation.started',
  'conversation.ended',
  'message.created',
  'lead.captured',
  'handoff.requested',
  'handoff.accepted',
  'handoff.resolved',
  'feedback.received',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];
export const PING_EVENT = 'ping';
export const PING_MESSAGE = 'This is a test event from ServiceChat: your webhook endpoint is reachable.';

/** Delays before tries 2..7 (seven tries in all), then given up. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000, 24 * 3600_000] as const;
export const MAX_TRIES = RETRY_DELAYS_MS.length + 1;
export const DELIVERY_TIMEOUT_MS = 10_000;
export const SWITCH_OFF_AFTER_FAILURES = 20;
export const MAX_REDIRECTS = 3;
export const DELIVERY_LOG_SIZE = 100;
/** How much of a receiver's answer is kept in the log. */
export const RESPONSE_SNIPPET_BYTES = 1024;
/**
 * Delivery slots (tries in flight at once) of the process, and the share one workspace and one endpoint may hold,
 * so a slow receiver never stalls anyone else's events (an endpoint with nothing in flight is served first).
 */
export const MAX_IN_FLIGHT = 32;
export const MAX_IN_FLIGHT_PER_WORKSPACE = 8;
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;
/**
 * After this many failures in a row an endpoint's events that were never tried wait for one of its retries to get
 * through (they are sent then, at once), so an outage costs a few tries, not one failure per queued event.
 */
export const HOLD_AFTER_FAILURES = 3;
/** Events older than a week are pruned on this period. */
export const MAINTENANCE_INTERVAL_MS = 3600_000;
export const USER_AGENT = 'ServiceChat-Webhooks/1';
export const SECRET_PREFIX = 'whsec_';

const isWebhookEventName = (t: string): t is WebhookEventName => (WEBHOOK_EVENTS as readonly string[]).includes(t);

/**
 * Whether a stored bus event goes out as a webhook. message.created is sent only for messages the visitor can
 * see: internal notes of the team never leave the server.
 */
export function isDeliverable(type: string, data: Record<string, unknown>): boolean {
  if (!isWebhookEventName(type)) return false;
  if (type === 'message.created') {
    const message = data.message as { visibility?: unknown } | undefined;
    if (message?.visibility === 'internal') return false;
  }
  return true;
}
