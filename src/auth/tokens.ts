/**
 * API tokens for programs. The value (`sct_` + 43 url-safe characters, so a leaked token is recognisable
 * to secret scanners) is returned once; only its SHA-256 is stored. Revocation deletes the record and drops it
 * from the credential cache (credential-cache.ts), so the next request with it fails at once.
 */
import type { AppContext } from '../app/context.js';
import { roleRank, SCOPE_ROLES, type Role, type Scope } from './roles.js';
import { unauthorized } from '../kernel/errors.js';
import { hashToken } from '../security/secret-box.js';
import { newId, newSecret } from '../store/ids.js';
import { credentialCache, forgetToken } from './credential-cache.js';
import type { Principal } from './principal.js';
import { type ApiTokenRecord } from './records.js';

export const TOKEN_PREFIX = 'sct_';
/** lastUsedAt is written at most this often per token. */
const LAST_USED_EVERY_MS = 60_000;

/** The highest role any of the scopes acts as (service-api.md, Authentication rule 5). */
export function roleOfScopes(scopes: readonly Scope[]): Role {
  return scopes.reduce<Role>((best, s) => (roleRank(SCOPE_ROLES[s]) > roleRank(best) ? SCOPE_ROLES[s] : best), 'viewer');
}

export function tokenView(t: ApiTokenRecord) {
  return {
    id: t._id, name: t.name, scopes: t.scopes, role: roleOfScopes(t.scopes), createdAt: t.createdAt,
    createdBy: t.createdBy, expiresAt: t.expiresAt, lastUsedAt: t.lastUsedAt,
  };
}

export async function createApiToken(
  app: AppContext, workspaceId: string, input: { name: string; scopes: Scope[]; expiresAt: number | null }, createdBy: { id: string; name: string },
): Promise<{ record: ApiTokenRecord; value: string }> {
  const now = app.clock.now();
  const value = TOKEN_PREFIX + newSecret(32);
  const record: ApiTokenRecord = {
    _id: newId('tok', now), workspaceId, name: input.name, scopes: [...new Set(input.scopes)], tokenHash: hashToken(value),
    createdAt: now, createdBy, expiresAt: input.expiresAt, lastUsedAt: null,
  };
  await app.records.apiTokens.insertOne(record);
  return { record, value };
}

/** The principal for a bearer token value; throws 401 for a bad, expired or revoked token. */
export async function resolveToken(app: AppContext, value: string): Promise<Extract<Principal, { kind: 'token' }>> {
  if (!value.startsWith(TOKEN_PREFIX)) throw unauthorized('not an API token of this server');
  const hash = hashToken(value);
  const cache = credentialCache(app).tokens;
  let rec = cache.get(hash);
  if (rec && cache.refreshDue(hash)) void readAgain(app, hash);
  if (!rec) {
    const since = cache.version;
    rec = await app.records.apiTokens.findOne({ tokenHash: hash }, { crossWorkspace: true });
    if (!rec) throw unauthorized('unknown or revoked API token');
    cache.set(hash, rec, since);
  }
  const now = app.clock.now();
  if (rec.expiresAt !== null && rec.expiresAt <= now) throw unauthorized('this API token has expired');
  if (rec.lastUsedAt === null || now - rec.lastUsedAt >= LAST_USED_EVERY_MS) {
    const kept = rec;
    const before = kept.lastUsedAt;
    kept.lastUsedAt = now; // the kept record too, so the requests right behind this one do not write it again
    // Not awaited: a request with a kept token then waits on no I/O (so it pipelines); a failed write is retried next time.
    app.records.apiTokens.updateOne({ workspaceId: kept.workspaceId, _id: kept._id }, { $set: { lastUsedAt: now } }).catch((err) => {
      if (kept.lastUsedAt === now) kept.lastUsedAt = before;
      app.log.warn({ err, tokenId: kept._id }, 'recording when an API token was last used failed');
    });
  }
  let principal = principals.get(rec);
  if (!principal) {
    principal = Object.freeze({ kind: 'token', workspaceId: rec.workspaceId, tokenId: rec._id, name: rec.name, scopes: rec.scopes, role: roleOfScopes(rec.scopes) } as const);
    principals.set(rec, principal);
  }
  return principal;
}

/** Reads a kept token again before its entry lapses (credential-cache.ts); a token gone meanwhile is forgotten. */
async function readAgain(app: AppContext, hash: string): Promise<void> {
  const cache = credentialCache(app).tokens;
  const since = cache.version;
  try {
    const rec = await app.records.apiTokens.findOne({ tokenHash: hash }, { crossWorkspace: true });
    if (rec) cache.set(hash, rec, since); else cache.delete(hash);
  } catch (err) {
    app.log.warn({ err }, 'reading a kept API token again failed; it is read on its next use');
  }
}

/** The principal of each kept record (credential-cache.ts), made once instead of on every request. */
const principals = new WeakMap<ApiTokenRecord, Extract<Principal, { kind: 'token' }>>();

/** Deletes a token and forgets it at once, so its next request is refused; null when the workspace has no such token. */
export async function revokeApiToken(app: AppContext, workspaceId: string, id: string): Promise<ApiTokenRecord | null> {
  const tok = await app.records.apiTokens.findById(workspaceId, id);
  if (!tok || !(await app.records.apiTokens.deleteOne({ workspaceId, _id: tok._id }))) return null;
  await forgetToken(app, tok.tokenHash);
  return tok;
}

/** Revokes every token a member made (on removal from the workspace): a person's tokens do not outlive their access. */
export async function revokeTokensOf(app: AppContext, workspaceId: string, userId: string): Promise<ApiTokenRecord[]> {
  const theirs = (await app.records.apiTokens.find({ workspaceId }, { limit: 100_000 })).filter((t) => t.createdBy?.id === userId);
  const revoked: ApiTokenRecord[] = [];
  for (const t of theirs) if (await revokeApiToken(app, workspaceId, t._id)) revoked.push(t);
  return revoked;
}
