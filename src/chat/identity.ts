import { createHmac } from 'node:crypto';
import { safeEqual } from '../security/secret-box.js';

/**
 * Identity verification (security.identity.mode). The page's server computes
 *   userHash = lowercase hex of HMAC-SHA256(key = the bot's identity secret as UTF-8 text, message = userId as UTF-8)
 * and the widget passes userId and userHash. The server recomputes and compares in constant time.
 */
export function identityHash(secret: string, userId: string): string {
  return createHmac('sha256', secret).update(userId, 'utf8').digest('hex');
}

export function verifyIdentity(secret: string | undefined, userId: string, userHash: string): boolean {
  if (!secret || !userId || !/^[0-9a-fA-F]{64}$/.test(userHash)) return false;
  return safeEqual(identityHash(secret, userId), userHash.toLowerCase());
}

/**
 * Visitor tokens: the widget keeps one (localStorage) so a returning visitor gets the same visitor id.
 * Format `v1.<visitorId>.<sig>` where sig is base64url HMAC-SHA256 over `<botId>.<visitorId>` with a key
 * derived from the server secret; a token only works for the bot it was issued for.
 */
export function signVisitorToken(key: Buffer, botId: string, visitorId: string): string {
  return `v1.${visitorId}.${sig(key, botId, visitorId)}`;
}

export function readVisitorToken(key: Buffer, botId: string, token: string | null | undefined): string | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1' || !/^vis_[A-Za-z0-9_-]{1,64}$/.test(parts[1])) return null;
  // A copy: the part is a slice of the token, itself a slice of the whole query string, which an open socket
  // would otherwise keep alive through the id for as long as it lives.
  return safeEqual(sig(key, botId, parts[1]), parts[2]) ? Buffer.from(parts[1], 'latin1').toString('latin1') : null;
}

function sig(key: Buffer, botId: string, visitorId: string): string {
  return createHmac('sha256', key).update(`visitor-token.${botId}.${visitorId}`, 'utf8').digest('base64url');
}
