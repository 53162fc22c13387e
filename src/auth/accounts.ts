/** First-run setup, signing in with e-mail and password, and changing a password. */
import type { AppContext } from '../app.js';
import { perApp } from '../app.js';
import { conflict, invalid, rateLimited, unauthorized } from '../errors.js';
import { DuplicateKeyError } from '../store/types.js';
import { newId } from '../store/ids.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { RateLimiter } from './rate-limit.js';
import {
  normalizeEmail, SETUP_LOCK_ID, setupLocks, users, workspaces, type UserRecord, type WorkspaceRecord,
} from './records.js';
import { defaultSettings } from './settings.js';

export const LOGIN_LIMIT = 10;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

/** Failed sign-in attempts, per client IP and per account e-mail. */
const loginLimits = perApp((app) => ({
  ip: new RateLimiter(app.clock, LOGIN_LIMIT, LOGIN_WINDOW_MS),
  account: new RateLimiter(app.clock, LOGIN_LIMIT, LOGIN_WINDOW_MS),
}));

/** True until the first workspace exists (again, after a workspace was deleted). */
export async function setupNeeded(app: AppContext): Promise<boolean> {
  return (await workspaces(app).count({}, { crossWorkspace: true })) === 0;
}

/** Creates the first workspace and its owner; refused with 409 once a workspace exists. */
export async function setupWorkspace(
  app: AppContext, input: { email: string; password: string; name: string; workspaceName: string },
): Promise<{ workspace: WorkspaceRecord; user: UserRecord }> {
  if (!(await setupNeeded(app))) throw conflict('this server is already set up; sign in instead');
  const now = app.clock.now();
  const workspaceId = newId('ws', now);
  try {
    await setupLocks(app).insertOne({ _id: SETUP_LOCK_ID, workspaceId, at: now });
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw conflict('this server is already set up; sign in instead');
    throw err;
  }
  const workspace: WorkspaceRecord = { _id: workspaceId, workspaceId, createdAt: now, settings: defaultSettings(input.workspaceName) };
  const user: UserRecord = {
    _id: newId('usr', now), workspaceId, email: normalizeEmail(input.email), name: input.name, role: 'owner',
    passwordHash: await hashPassword(input.password), createdAt: now, presence: 'offline', presenceAt: now,
  };
  await workspaces(app).insertOne(workspace);
  await users(app).insertOne(user);
  return { workspace, user };
}

/**
 * Checks e-mail and password. Every attempt counts against the client's IP and the account; a good one is
 * taken back. Over the limit answers 429 with Retry-After, before the password is even looked at.
 */
export async function signIn(app: AppContext, emailInput: string, password: string, ip: string): Promise<UserRecord> {
  const email = normalizeEmail(emailInput);
  const limits = loginLimits(app);
  const ipKey = ip || 'unknown';
  const waitMs = Math.max(limits.ip.waitMs(ipKey), limits.account.waitMs(email));
  if (waitMs > 0) throw rateLimited(waitMs / 1000, 'too many sign-in attempts; try again later');
  limits.ip.hit(ipKey);
  limits.account.hit(email);
  const user = await users(app).findOne({ email }, { crossWorkspace: true });
  const ok = await verifyPassword(password, user?.passwordHash ?? null);
  if (!user || !ok) {
    app.log.info({ ip }, 'failed sign-in attempt');
    throw unauthorized('wrong e-mail or password');
  }
  limits.ip.forgive(ipKey);
  limits.account.reset(email);
  return user;
}

/** Changes a password after checking the current one (wrong attempts count against the account limit). */
export async function changePassword(app: AppContext, workspaceId: string, userId: string, current: string, next: string): Promise<void> {
  const user = await users(app).findById(workspaceId, userId);
  if (!user) throw unauthorized();
  const limits = loginLimits(app).account;
  const waitMs = limits.waitMs(user.email);
  if (waitMs > 0) throw rateLimited(waitMs / 1000, 'too many wrong passwords; try again later');
  if (!(await verifyPassword(current, user.passwordHash))) {
    limits.hit(user.email);
    throw invalid('currentPassword: is not your current password', [{ path: 'currentPassword', message: 'is not your current password' }]);
  }
  await users(app).updateOne({ workspaceId, _id: userId }, { $set: { passwordHash: await hashPassword(next) } });
}
