/** First-run setup, signing in with e-mail and password, and changing a password. */
import type { AppContext } from '../app/context.js';
import { conflict, invalid, rateLimited, unauthorized } from '../kernel/errors.js';
import { DuplicateKeyError } from '../store/types.js';
import { newId } from '../store/ids.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { RateLimiter } from '../security/rate-limiter.js';
import { SIGN_IN_LIMITS, SignInThrottle } from './rate-limit.js';
import { GroupSignInThrottle } from '../scale/sign-in.js';
import { nodeOf } from '../scale/node-of.js';
import { normalizeEmail, SETUP_LOCK_ID, type UserRecord, type WorkspaceRecord } from './records.js';
import { defaultSettings } from './settings.js';

/**
 * Failed sign-in attempts (see SignInThrottle; counted across the scale-out group when there is one) and wrong
 * current passwords. The composition root makes one; the sign-in routes are handed it.
 */
export class AccountThrottles {
  readonly signIn: SignInThrottle;
  readonly groupSignIn: GroupSignInThrottle | null;
  readonly passwordChecks: RateLimiter;

  constructor(app: AppContext) {
    this.signIn = new SignInThrottle(app.clock);
    const node = nodeOf(app);
    this.groupSignIn = node ? new GroupSignInThrottle(node, app, SIGN_IN_LIMITS) : null;
    this.passwordChecks = new RateLimiter(app.clock, 15 * 60 * 1000);
  }
}
/** Wrong current passwords when changing a password, per person (they are signed in: no one else can lock them out). */
/** Wrong current passwords per account (changePassword). */
const PASSWORD_CHECKS = 10;

/** True until the first workspace exists (again, after a workspace was deleted). */
export async function setupNeeded(app: AppContext): Promise<boolean> {
  return (await app.records.workspaces.count({}, { crossWorkspace: true })) === 0;
}

/** Creates the first workspace and its owner; refused with 409 once a workspace exists. */
export async function setupWorkspace(
  app: AppContext, input: { email: string; password: string; name: string; workspaceName: string },
): Promise<{ workspace: WorkspaceRecord; user: UserRecord }> {
  if (!(await setupNeeded(app))) throw conflict('this server is already set up; sign in instead');
  const now = app.clock.now();
  const workspaceId = newId('ws', now);
  try {
    await app.records.setupLocks.insertOne({ _id: SETUP_LOCK_ID, workspaceId, at: now });
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw conflict('this server is already set up; sign in instead');
    throw err;
  }
  const workspace: WorkspaceRecord = { _id: workspaceId, workspaceId, createdAt: now, settings: defaultSettings(input.workspaceName) };
  const user: UserRecord = {
    _id: newId('usr', now), workspaceId, email: normalizeEmail(input.email), name: input.name, role: 'owner',
    passwordHash: await hashPassword(input.password), createdAt: now, presence: 'offline', presenceAt: now,
  };
  await app.records.workspaces.insertOne(workspace);
  await app.records.users.insertOne(user);
  return { workspace, user };
}

/**
 * Checks e-mail and password. Every attempt counts against the client's address and the account (see
 * SignInThrottle); a good one is taken back. Over a limit answers 429 with Retry-After, before the password is
 * even looked at.
 */
export async function signIn(app: AppContext, throttles: AccountThrottles, emailInput: string, password: string, ip: string): Promise<UserRecord> {
  const email = normalizeEmail(emailInput);
  const address = ip || 'unknown';
  // Scale-out: counted across the group (src/scale/sign-in.ts); alone, or while Redis is away, here.
  const group = app.scale?.healthy ? throttles.groupSignIn : null;
  const throttle = throttles.signIn;
  const waitMs = group ? await group.waitMs(email, address) : throttle.waitMs(email, address);
  if (waitMs > 0) throw rateLimited(waitMs / 1000, 'too many failed sign-ins from your address; try again after the number of seconds in Retry-After');
  const attempt = group ? await group.attempt(email, address) : (throttle.attempt(email, address), '');
  const user = await app.records.users.findOne({ email }, { crossWorkspace: true });
  const ok = await verifyPassword(password, user?.passwordHash ?? null);
  if (!user || !ok) {
    app.log.info({ ip }, 'failed sign-in attempt');
    throw unauthorized('wrong e-mail or password');
  }
  if (group) await group.succeeded(email, address, attempt); else throttle.succeeded(email, address);
  return user;
}

/** Changes a password after checking the current one (wrong attempts count against the account limit). */
export async function changePassword(app: AppContext, throttles: AccountThrottles, workspaceId: string, userId: string, current: string, next: string): Promise<void> {
  const user = await app.records.users.findById(workspaceId, userId);
  if (!user) throw unauthorized();
  const limits = throttles.passwordChecks;
  const waitMs = limits.waitMs(user._id, PASSWORD_CHECKS);
  if (waitMs > 0) throw rateLimited(waitMs / 1000, 'too many wrong current passwords; try again after the number of seconds in Retry-After');
  if (!(await verifyPassword(current, user.passwordHash))) {
    limits.hit(user._id, PASSWORD_CHECKS);
    throw invalid('currentPassword: is not your current password', [{ path: 'currentPassword', message: 'is not your current password' }]);
  }
  await app.records.users.updateOne({ workspaceId, _id: userId }, { $set: { passwordHash: await hashPassword(next) } });
}
