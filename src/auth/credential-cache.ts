/**
 * What a session cookie or API token resolved to, kept a moment so a busy client does not cost a store round
 * trip (two for a session: the session and its user) on every request. Keyed by the credential's SHA-256, as
 * stored. Every change this process makes to access drops the entries it touches at once: signing out, ending
 * a user's sessions, a role change, removing a member and deleting a workspace (all announced through
 * access-ended.ts), and revoking a token (tokens.ts). Entries also lapse after CREDENTIAL_TTL_MS, which bounds
 * how long a change made outside this process (another server process, a store edited by hand) goes unseen;
 * an entry in use is read again beside its request in its last REFRESH_AHEAD_MS, so a busy one never lapses.
 * A read that began before a drop never puts the dropped entry back (`version`). Unknown credentials are never
 * kept: each one is looked up again.
 */
import type { AppContext } from '../app/context.js';
import { provided } from '../app/context.js';
import type { Clock } from '../kernel/clock.js';
import type { AccessEnded, AccessEndings } from './access-ended.js';
import type { ApiTokenRecord, SessionRecord, UserRecord } from './records.js';

export const CREDENTIAL_TTL_MS = 2_000;
/** Entries kept at most per kind (the oldest go first); far above the clients a server serves at once. */
const MAX_ENTRIES = 10_000;

/**
 * A kept entry in use is read again beside the request once this little of its lifetime is left, so a busy
 * credential never lapses and no request of it waits on the store (pipelined requests stay answerable in order).
 */
export const REFRESH_AHEAD_MS = 500;

class Cache<V> {
  private entries = new Map<string, { value: V; until: number; refreshing: boolean }>();
  /** Bumped by every drop: a read that began before it must not put back what was dropped (`set`'s `since`). */
  version = 0;
  constructor(private clock: Clock) {}

  get(hash: string): V | null {
    const e = this.entries.get(hash);
    if (!e) return null;
    if (e.until > this.clock.now()) return e.value;
    this.entries.delete(hash);
    return null;
  }

  /** True once for a kept entry near its end: the caller reads it again, then `set`s or `delete`s it. */
  refreshDue(hash: string): boolean {
    const e = this.entries.get(hash);
    if (!e || e.refreshing || e.until - this.clock.now() > REFRESH_AHEAD_MS) return false;
    e.refreshing = true;
    return true;
  }

  /** Keeps `value`, unless something was dropped since `since` (the `version` read before the store was). */
  set(hash: string, value: V, since = this.version): void {
    if (since !== this.version) return;
    this.entries.delete(hash);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { value, until: this.clock.now() + CREDENTIAL_TTL_MS, refreshing: false });
  }

  delete(hash: string): void {
    this.version++;
    this.entries.delete(hash);
  }

  dropWhere(test: (v: V) => boolean): void {
    this.version++;
    for (const [k, e] of this.entries) if (test(e.value)) this.entries.delete(k);
  }
}

export interface CachedSession { session: SessionRecord; user: UserRecord }

export interface CredentialCache { tokens: Cache<ApiTokenRecord>; sessions: Cache<CachedSession> }
export const credentialCache = provided<CredentialCache>('credential cache');

/** The kept sessions and tokens of this process (the composition root makes them): access that ended is forgotten. */
export function createCredentialCache(app: AppContext, endings: AccessEndings): CredentialCache {
  const tokens = new Cache<ApiTokenRecord>(app.clock);
  const sessions = new Cache<CachedSession>(app.clock);
  endings.on((e: AccessEnded) => {
    // Rights that changed (sessionEnded false) are re-read too: the role is part of what is kept.
    sessions.dropWhere(({ session: s }) => s.workspaceId === e.workspaceId && (!e.userId || s.userId === e.userId) && (!e.sessionId || s._id === e.sessionId));
    if (!e.userId && !e.sessionId) tokens.dropWhere((t) => t.workspaceId === e.workspaceId);
  });
  return { tokens, sessions };
}

/**
 * Forgets a revoked token here and, in a scale-out group, on every other process before returning, so its
 * next request is refused wherever it lands.
 */
export async function forgetToken(app: AppContext, hash: string): Promise<void> {
  credentialCache(app).tokens.delete(hash);
  await app.scale?.broadcastAcked('inv', { k: 'token', hash });
}

/** Drops every kept session and token of a workspace (after its records are deleted). */
export function forgetWorkspaceCredentials({ tokens, sessions }: CredentialCache, workspaceId: string): void {
  tokens.dropWhere((t) => t.workspaceId === workspaceId);
  sessions.dropWhere(({ session }) => session.workspaceId === workspaceId);
}
