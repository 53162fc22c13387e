/** Accounts: list them, reset a password, make a one-time sign-in link. */
import { randomBytes } from 'node:crypto';
import { passwordProblem } from '../auth/password-policy.js';
import { hashPassword } from '../auth/passwords.js';
import { normalizeEmail } from '../auth/records.js';
import { createSignInLink, SignInLinkError } from '../auth/signin-links.js';
import type { Config } from '../config/index.js';
import { CommandError, UsageError, withApp } from './context.js';

export async function listAccounts(config: Config, out: (line: string) => void, json: boolean): Promise<void> {
  await withApp(config, async (app) => {
    const all = await app.records.users.find({}, { crossWorkspace: true, sort: [['_id', 1]], limit: 10_000 });
    if (json) return out(JSON.stringify(all.map((u) => ({ id: u._id, workspaceId: u.workspaceId, email: u.email, name: u.name, role: u.role }))));
    if (!all.length) return out('no accounts yet: open the admin panel to set up the first workspace');
    for (const u of all) out(`${u.email}\t${u.role}\t${u.name}\tworkspace ${u.workspaceId}`);
  });
}

/** Sets a new password (given, or generated and printed) and ends the account's sessions. */
export async function resetPassword(config: Config, email: string | undefined, password: string | undefined, out: (line: string) => void): Promise<void> {
  if (!email) throw new UsageError('reset-password needs --email <address>');
  const problem = password === undefined ? null : passwordProblem(password);
  if (problem) throw new UsageError(`--password ${problem} (or leave --password out to have one generated)`);
  const next = password ?? randomBytes(12).toString('base64url');
  await withApp(config, async (app) => {
    const user = await app.records.users.findOne({ email: normalizeEmail(email) }, { crossWorkspace: true });
    if (!user) throw new CommandError(`no account with the e-mail ${email}; list them with: service-chat accounts`);
    await app.records.users.updateOne({ workspaceId: user.workspaceId, _id: user._id }, { $set: { passwordHash: await hashPassword(next) } });
    const ended = await app.records.sessions.deleteMany({ workspaceId: user.workspaceId, userId: user._id });
    out(`password of ${user.email} reset; ${ended} session(s) ended`);
    if (!password) out(`new password: ${next}`);
  });
}

export async function signInLink(config: Config, email: string | undefined, ttlMinutes: number, out: (line: string) => void): Promise<void> {
  if (!email) throw new UsageError('signin-link needs --email <address>');
  if (!Number.isFinite(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > 24 * 60) throw new UsageError('--minutes must be between 1 and 1440');
  await withApp(config, async (app) => {
    try {
      const link = await createSignInLink(app, email, ttlMinutes * 60_000);
      out(link.url);
      out(`opens a session for ${link.user.email} once, until ${new Date(link.expiresAt).toISOString()} (the address comes from PUBLIC_URL)`);
    } catch (err) {
      if (err instanceof SignInLinkError) throw new CommandError(err.message);
      throw err;
    }
  });
}
