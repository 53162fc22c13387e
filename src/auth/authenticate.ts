import type { AppContext } from '../app/context.js';
import { unauthorized } from '../kernel/errors.js';
import type { HttpRequest } from '../http/types.js';
import type { Principal } from './principal.js';
import { resolveSession, SESSION_COOKIE } from './sessions.js';
import { resolveToken } from './tokens.js';

/**
 * Resolves the caller from the Authorization: Bearer token (checked first: programs) or the session cookie.
 * Returns null when no credentials were sent. A bad, expired or revoked token throws 401 unauthorized.
 * A session cookie that names no live session counts as no credentials: protected routes then answer 401,
 * while public ones (sign-in, invitations) still work for a browser holding an old cookie.
 */
export async function authenticate(app: AppContext, req: Pick<HttpRequest, 'headers' | 'cookies'>): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!m) throw unauthorized('send the API token as Authorization: Bearer <token>');
    return resolveToken(app, m[1]);
  }
  const cookie = req.cookies[SESSION_COOKIE];
  if (cookie) return resolveSession(app, cookie);
  return null;
}
