/**
 * The one guarded HTTP client for all provider traffic (chat replies, connection checks and model lists, speech,
 * voice stages, hosted agents): one address policy, one connection pool, one set of limits. The composition root
 * (src/compose.ts) makes it and closes it at shutdown. How long each kind of call may take is the adapter's own
 * timeout (`guardedAdapter(client, conn, { timeoutMs })`: 120 s for replies, 30 s for checks, 15 s for voice), so
 * the client's limit on the time to response headers only has to outlast the longest of them (docs/decisions.md).
 */
import { provided, type AppContext } from '../app/context.js';
import { createGuardedClient, type GuardedClient } from '../security/guarded-client.js';

/** Time to response headers: above the longest adapter timeout (a reply's 120 s), so the adapter's decides. */
export const PROVIDER_HEADERS_TIMEOUT_MS = 125_000;
/** The largest body read whole (request()); streamed answers (fetch) are the adapter's to read. Audio fits. */
export const PROVIDER_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export const providerClient = provided<GuardedClient>('provider HTTP client');

export function createProviderClient(app: AppContext): GuardedClient {
  return createGuardedClient({
    allowPrivateNetwork: app.config.allowPrivateNetwork,
    timeoutMs: PROVIDER_HEADERS_TIMEOUT_MS,
    maxResponseBytes: PROVIDER_MAX_RESPONSE_BYTES,
    clock: app.clock,
  });
}
