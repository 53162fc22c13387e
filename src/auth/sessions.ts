/**
 * Server-side sessions for people. The cookie holds a random value; the store keeps its SHA-256 hash, the
 * session's CSRF token and its expiry (14 days, pushed forward with use, written at most once an hour).
 */
import type { AppContext } from '../app/context.js';
import { serializeCookie } from '../http/cookies.js';
import { hashToken } from '../security/secret-box.js';
import { newId, newSecret } from '../store/ids.js';
import type { AccessEndings } from './access-ended.js';
import { credentialCache, type CachedSession } from './credential-cache.js';
import type { Principal } from './principal.js';
import { type SessionRecord, type UserRecord } from './records.js';

export const SESSION_COOKIE = 'sc_session';
export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;
/** Renewal is written at most this often, so a busy session does not cost a write per request. */
export const SESSION_RENEW_EVERY_MS = 3600 * 1000;

export type SessionPrincipal = Extract<Principal, { kind: 'session' }>;

const secure = (app: AppContext) => app.config.publicUrl.startsWith('https:');

/** Set-Cookie value for a session cookie that lives `maxAgeMs` (0 clears it). */
export function sessionCookie(app: AppContext, value: string, maxAgeMs = SESSION_TTL_MS): string {
  return serializeCookie(SESSION_COOKIE, value, {
    httpOnly: true, sameSite: 'lax', path: '/', secure: secure(app), maxAge: Math.max(0, Math.floor(maxAgeMs / 1000)),
  });
}
export const clearSessionCookie = (app: AppContext) => sessionCookie(app, '', 0);

export function sessionPrincipal(user: UserRecord, s: SessionRecord): SessionPrincipal {
  return {
    kind: 'session', workspaceId: user.workspaceId, userId: user._id, userName: user.name, email: user.email,
    role: user.role, sessionId: s._id, csrfToken: s.csrfToken,
  };
}

/** Starts a new session (a new id and cookie value every time, so a planted cookie is never promoted). */
export async function createSession(app: AppContext, user: UserRecord): Promise<{ principal: SessionPrincipal; cookie: string; csrfToken: string }> {
  const now = app.clock.now();
  const value = newSecret(32);
  const rec: SessionRecord = {
    _id: newId('ses', now), workspaceId: user.workspaceId, userId: user._id, tokenHash: hashToken(value),
    csrfToken: newSecret(24), createdAt: now, expiresAt: now + SESSION_TTL_MS, renewedAt: now,
  };
  await app.records.sessions.insertOne(rec);
  return { principal: sessionPrincipal(user, rec), cookie: sessionCookie(app, value), csrfToken: rec.csrfToken };
}

/**
 * The session for a cookie value, renewed when due; null when the cookie names no live session (ended,
 * expired, or its user removed). Null rather than an error, so a stale cookie never blocks signing in again.
 */
export async function resolveSession(app: AppContext, value: string): Promise<SessionPrincipal | null> {
  const hash = hashToken(value);
  const cache = credentialCache(app).sessions;
  const now = app.clock.now();
  const kept = cache.get(hash);
  if (kept && kept.session.expiresAt > now) {
    if (cache.refreshDue(hash)) void readAgain(app, hash);
    return renewIfDue(app, kept, now);
  }
  cache.delete(hash);
  const since = cache.version;
  const found = await readSession(app, hash, now);
  if (!found) return null;
  cache.set(hash, found, since);
  return renewIfDue(app, found, now);
}

/** The live session of a cookie hash with its user; an expired session, or one whose user is gone, is deleted. */
async function readSession(app: AppContext, hash: string, now: number): Promise<CachedSession | null> {
  const rec = await app.records.sessions.findOne({ tokenHash: hash }, { crossWorkspace: true });
  if (!rec) return null;
  const user = rec.expiresAt > now ? await app.records.users.findById(rec.workspaceId, rec.userId) : null;
  if (!user) {
    await app.records.sessions.deleteOne({ workspaceId: rec.workspaceId, _id: rec._id });
    return null;
  }
  return { session: rec, user };
}

/** Reads a kept session again before its entry lapses (credential-cache.ts); one ended meanwhile is forgotten. */
async function readAgain(app: AppContext, hash: string): Promise<void> {
  const cache = credentialCache(app).sessions;
  const since = cache.version;
  try {
    const found = await readSession(app, hash, app.clock.now());
    if (found) cache.set(hash, found, since); else cache.delete(hash);
  } catch (err) {
    app.log.warn({ err }, 'reading a kept session again failed; it is read on its next use');
  }
}

/** The principal of each kept session (with its user: both are re-read together), made once, not per request. */
const principals = new WeakMap<SessionRecord, SessionPrincipal>();

function renewIfDue(app: AppContext, { session: rec, user }: CachedSession, now: number): SessionPrincipal {
  if (now - rec.renewedAt < SESSION_RENEW_EVERY_MS) {
    let principal = principals.get(rec);
    if (!principal) principals.set(rec, (principal = Object.freeze(sessionPrincipal(user, rec))));
    return principal;
  }
  // The kept record is renewed too, so the requests right behind this one do not write it again.
  const was = { expiresAt: rec.expiresAt, renewedAt: rec.renewedAt };
  rec.expiresAt = now + SESSION_TTL_MS;
  rec.renewedAt = now;
  // Not awaited, so a request with a kept session waits on no I/O (it pipelines); a failed write is retried next time.
  app.records.sessions.updateOne({ workspaceId: rec.workspaceId, _id: rec._id }, { $set: { expiresAt: rec.expiresAt, renewedAt: now } }).catch((err) => {
    if (rec.renewedAt === now) Object.assign(rec, was);
    app.log.warn({ err, sessionId: rec._id }, 'renewing a session failed');
  });
  return { ...sessionPrincipal(user, rec), renewed: true };
}

/** Milliseconds the session behind this principal still has (for re-sending the cookie with a fresh Max-Age). */
export async function sessionRemainingMs(app: AppContext, p: SessionPrincipal): Promise<number> {
  const rec = await app.records.sessions.findById(p.workspaceId, p.sessionId);
  return rec ? rec.expiresAt - app.clock.now() : 0;
}

/** Ends one session (signing out); its open live sockets close too. */
export async function endSession(app: AppContext, endings: AccessEndings, workspaceId: string, sessionId: string): Promise<void> {
  await app.records.sessions.deleteOne({ workspaceId, _id: sessionId });
  endings.announce({ workspaceId, sessionId, sessionEnded: true, reason: 'signed out' });
}

/** Ends every session of a user, except `keepSessionId` (the one changing its password); their live sockets close too. */
export async function endUserSessions(app: AppContext, endings: AccessEndings, workspaceId: string, userId: string, reason: string, keepSessionId?: string): Promise<number> {
  const ended = await app.records.sessions.deleteMany({ workspaceId, userId, ...(keepSessionId ? { _id: { $ne: keepSessionId } } : {}) });
  endings.announce({ workspaceId, userId, keepSessionId, sessionEnded: true, reason });
  return ended;
}
