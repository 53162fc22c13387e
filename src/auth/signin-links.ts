/**
 * One-time sign-in links, made by the operator's command line (`service-chat signin-link`) for an owner who
 * cannot sign in. The store keeps the token's hash; opening the link once, before it expires, starts a session.
 */
import type { AppContext } from '../app/context.js';
import type { RecordSpecs } from '../app/records.js';
import { hashToken } from '../security/secret-box.js';
import { newId, newSecret } from '../store/ids.js';
import type { Collection, Doc } from '../store/types.js';
import { normalizeEmail, type UserRecord } from './records.js';

export interface SignInLinkRecord extends Doc {
  userId: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export const SIGNIN_LINK_PATH = '/auth/link';
export const SIGNIN_LINK_TTL_MS = 15 * 60_000;

declare module '../app/records.js' {
  interface Records {
    signInLinks: Collection<SignInLinkRecord>;
  }
}
export const signInLinkRecords = { signInLinks: { name: 'signin_links', indexes: [{ fields: [['tokenHash', 1]], unique: true }] } } satisfies RecordSpecs<'signInLinks'>;

export class SignInLinkError extends Error {}

/** Makes a link for the account with this e-mail; throws SignInLinkError when there is none. */
export async function createSignInLink(app: AppContext, email: string, ttlMs = SIGNIN_LINK_TTL_MS): Promise<{ url: string; expiresAt: number; user: UserRecord }> {
  const user = await app.records.users.findOne({ email: normalizeEmail(email) }, { crossWorkspace: true });
  if (!user) throw new SignInLinkError(`no account with the e-mail ${email}; list accounts with: service-chat accounts`);
  const now = app.clock.now();
  const token = newSecret(32);
  await app.records.signInLinks.insertOne({ _id: newId('sil', now), workspaceId: user.workspaceId, userId: user._id, tokenHash: hashToken(token), createdAt: now, expiresAt: now + ttlMs, usedAt: null });
  return { url: `${app.config.publicUrl}${SIGNIN_LINK_PATH}?token=${encodeURIComponent(token)}`, expiresAt: now + ttlMs, user };
}

/** Uses a link up (atomically: two tabs opening it get one session) and returns its account, or null. */
export async function consumeSignInLink(app: AppContext, token: string): Promise<UserRecord | null> {
  const now = app.clock.now();
  const link = await app.records.signInLinks.updateOne(
    { tokenHash: hashToken(token), usedAt: null, expiresAt: { $gt: now } },
    { $set: { usedAt: now } }, { crossWorkspace: true },
  );
  if (!link) return null;
  return app.records.users.findById(link.workspaceId, link.userId);
}
