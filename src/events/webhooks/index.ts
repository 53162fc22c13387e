/** Webhooks: one dispatcher and one guarded client per app, made by the composition root, started with the API module. */
import type { AppContext } from '../../app/context.js';
import { createGuardedClient, type GuardedClient } from '../../security/guarded-client.js';
import { DELIVERY_TIMEOUT_MS, USER_AGENT } from './constants.js';
import { WebhookDispatcher } from './dispatcher.js';
import { WebhookEndpoints } from './endpoints.js';

export { WEBHOOK_EVENTS, PING_EVENT, PING_MESSAGE, RETRY_DELAYS_MS, MAX_TRIES } from './constants.js';
export { signatureHeader, signatureV1, webhookBody } from './signature.js';
export type { DeliveryRecord, DeliveryView, EndpointRecord, EndpointView, DeliveryState } from './records.js';
export { WebhookDispatcher, WebhookEndpoints };

export interface WebhookService {
  endpoints: WebhookEndpoints;
  dispatcher: WebhookDispatcher;
  client: GuardedClient;
}


/** The webhook area of this app (the composition root makes it and calls `stopWebhooks` at shutdown). */
export function createWebhooks(app: AppContext): WebhookService {
  const client = createGuardedClient({
    allowPrivateNetwork: app.config.allowPrivateNetwork,
    // Plain http is refused on every hop (redirects too) in production.
    httpsOnly: app.config.production,
    userAgent: USER_AGENT,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    clock: app.clock,
  });
  const dispatcher = new WebhookDispatcher(app, client);
  return { endpoints: new WebhookEndpoints(app, dispatcher), dispatcher, client };
}

/** Starts delivery (including what was left due by the last run). */
export function startWebhooks(service: WebhookService): void {
  service.dispatcher.start();
}

/** At shutdown: delivery stops (what is due stays stored for the next run), then the client closes. */
export async function stopWebhooks(service: WebhookService): Promise<void> {
  await service.dispatcher.stop();
  await service.client.close();
}
