/**
 * Preview tokens: let the widget load a bot's draft (POST /bots/{id}/preview). Stateless and signed, so the
 * chat engine checks one without a lookup: "bpv_" + base64url(JSON { b, w, e }) + "." + base64url(HMAC-SHA256).
 * The HMAC key is derived from the server key, separate from the key that seals secrets.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import { unauthorized } from '../kernel/errors.js';
import { safeEqual } from '../security/secret-box.js';

export const PREVIEW_TOKEN_PREFIX = 'bpv_';
export const PREVIEW_TOKEN_TTL_MS = 30 * 60 * 1000;

/** Derived when a token is made or checked (a few microseconds; previews are rare), not kept. */
const signingKey = (app: AppContext) => Buffer.from(hkdfSync('sha256', app.secretKey, 'service-chat', 'bot preview token v1', 32));

const sign = (app: AppContext, payload: string) => createHmac('sha256', signingKey(app)).update(payload).digest('base64url');

export function createPreviewToken(app: AppContext, workspaceId: string, botId: string): { token: string; expiresAt: number } {
  const expiresAt = app.clock.now() + PREVIEW_TOKEN_TTL_MS;
  const payload = Buffer.from(JSON.stringify({ b: botId, w: workspaceId, e: expiresAt })).toString('base64url');
  return { token: `${PREVIEW_TOKEN_PREFIX}${payload}.${sign(app, payload)}`, expiresAt };
}

/**
 * The bot and workspace a preview token was made for. Throws ApiError unauthorized (401) when the token is
 * malformed, signed with another key, or expired. Does not check that the bot still exists.
 */
export function verifyPreviewToken(app: AppContext, token: string): { botId: string; workspaceId: string; expiresAt: number } {
  if (typeof token !== 'string' || !token.startsWith(PREVIEW_TOKEN_PREFIX)) throw unauthorized('not a preview token');
  const [payload, mac, extra] = token.slice(PREVIEW_TOKEN_PREFIX.length).split('.');
  if (!payload || !mac || extra !== undefined || !safeEqual(mac, sign(app, payload))) throw unauthorized('preview token is not valid');
  let data: { b?: unknown; w?: unknown; e?: unknown };
  try {
    data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw unauthorized('preview token is not valid');
  }
  if (typeof data.b !== 'string' || typeof data.w !== 'string' || typeof data.e !== 'number') throw unauthorized('preview token is not valid');
  if (data.e <= app.clock.now()) throw unauthorized('preview token has expired; open the preview again');
  return { botId: data.b, workspaceId: data.w, expiresAt: data.e };
}
