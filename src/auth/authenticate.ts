import type { AppContext } from '../app.js';
import type { HttpRequest } from '../http/types.js';
import type { Principal } from './principal.js';

/**
 * Resolves the caller from the session cookie or the Authorization: Bearer token.
 * Returns null when no credentials were sent; throws unauthorized when they were sent but are not valid.
 */
export async function authenticate(_app: AppContext, _req: Pick<HttpRequest, 'headers' | 'cookies'>): Promise<Principal | null> {
  return null;
}
