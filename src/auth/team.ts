/**
 * The team: invitations (single-use links, stored hashed, 7 days) and role changes. Rules: nobody gives a
 * role above their own, only an owner changes or removes an owner, and the last owner stays an owner.
 */
import type { AppContext } from '../app/context.js';
import { roleRank, type Role } from './roles.js';
import { conflict, forbidden, invalid, notFound } from '../kernel/errors.js';
import { hashToken } from '../security/secret-box.js';
import { DuplicateKeyError } from '../store/types.js';
import { newId, newSecret } from '../store/ids.js';
import type { AccessEndings } from './access-ended.js';
import { hashPassword } from './passwords.js';
import { normalizeEmail, type InviteRecord, type UserRecord } from './records.js';
import { endUserSessions, type SessionPrincipal } from './sessions.js';
import { getSettings } from './settings.js';
import { revokeTokensOf } from './tokens.js';

export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

export const inviteView = (i: InviteRecord) => ({
  id: i._id, email: i.email, role: i.role, createdAt: i.createdAt, expiresAt: i.expiresAt, invitedBy: i.invitedBy,
});

function mayAssign(actor: SessionPrincipal, role: Role): void {
  if (roleRank(role) > roleRank(actor.role)) throw forbidden(`you cannot give the ${role} role: it is above your own`);
}

/** Open (unexpired) invitations; expired ones are removed on the way. */
export async function openInvites(app: AppContext, workspaceId: string): Promise<InviteRecord[]> {
  await app.records.invites.deleteMany({ workspaceId, expiresAt: { $lte: app.clock.now() } });
  return app.records.invites.find({ workspaceId });
}

/** Creates an invitation; inviting the same address again replaces the earlier link. */
export async function inviteMember(app: AppContext, actor: SessionPrincipal, emailInput: string, role: Role): Promise<{ invite: InviteRecord; link: string }> {
  mayAssign(actor, role);
  const email = normalizeEmail(emailInput);
  const { allowedEmailDomains } = await getSettings(app, actor.workspaceId);
  if (allowedEmailDomains.length && !allowedEmailDomains.includes(email.split('@')[1] ?? '')) {
    throw invalid(`email: must be in one of the workspace's allowed domains (${allowedEmailDomains.join(', ')})`, [{ path: 'email', message: 'domain not allowed' }]);
  }
  // Only this workspace's own members are told apart: whether the address has an account in another workspace
  // is not this workspace's business, so that invitation is made as any other (accepting it then fails).
  if (await app.records.users.findOne({ workspaceId: actor.workspaceId, email })) throw conflict('this person is already a member of this workspace');
  await app.records.invites.deleteMany({ workspaceId: actor.workspaceId, email });
  const now = app.clock.now();
  const token = newSecret(32);
  const invite: InviteRecord = {
    _id: newId('inv', now), workspaceId: actor.workspaceId, email, role, tokenHash: hashToken(token),
    createdAt: now, expiresAt: now + INVITE_TTL_MS, invitedBy: { id: actor.userId, name: actor.userName },
  };
  await app.records.invites.insertOne(invite);
  return { invite, link: `${app.config.publicUrl}/admin/#/invite/${token}` };
}

/** The open invitation for a link token, with its workspace's name; 404 when unknown, used or expired. */
export async function findInvite(app: AppContext, token: string): Promise<{ invite: InviteRecord; workspaceName: string }> {
  const invite = await app.records.invites.findOne({ tokenHash: hashToken(token) }, { crossWorkspace: true });
  if (!invite || invite.expiresAt <= app.clock.now()) throw notFound('invitation');
  const ws = await app.records.workspaces.findById(invite.workspaceId, invite.workspaceId);
  if (!ws) throw notFound('invitation');
  return { invite, workspaceName: ws.settings.name };
}

/** Joins the workspace: the invitation is claimed (deleted) first, so a link works exactly once. */
export async function acceptInvite(app: AppContext, token: string, input: { name: string; password: string }): Promise<UserRecord> {
  const { invite } = await findInvite(app, token);
  if (await app.records.users.findOne({ email: invite.email }, { crossWorkspace: true })) throw conflict('someone with this e-mail already has an account');
  const passwordHash = await hashPassword(input.password);
  if (!(await app.records.invites.deleteOne({ workspaceId: invite.workspaceId, _id: invite._id }))) throw notFound('invitation');
  const now = app.clock.now();
  const user: UserRecord = {
    _id: newId('usr', now), workspaceId: invite.workspaceId, email: invite.email, name: input.name, role: invite.role,
    passwordHash, createdAt: now, presence: 'offline', presenceAt: now,
  };
  try {
    await app.records.users.insertOne(user);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw conflict('someone with this e-mail already has an account');
    throw err;
  }
  return user;
}

async function ownerCount(app: AppContext, workspaceId: string): Promise<number> {
  return app.records.users.count({ workspaceId, role: 'owner' });
}

async function targetOf(app: AppContext, actor: SessionPrincipal, userId: string): Promise<UserRecord> {
  const target = await app.records.users.findById(actor.workspaceId, userId);
  if (!target) throw notFound('member');
  if (target.role === 'owner' && actor.role !== 'owner') throw forbidden('only an owner can change or remove an owner');
  if (roleRank(target.role) > roleRank(actor.role)) throw forbidden('this member has a higher role than yours');
  return target;
}

export async function changeRole(app: AppContext, endings: AccessEndings, actor: SessionPrincipal, userId: string, role: Role): Promise<UserRecord> {
  const target = await targetOf(app, actor, userId);
  mayAssign(actor, role);
  if (target.role === 'owner' && role !== 'owner' && (await ownerCount(app, actor.workspaceId)) <= 1) {
    throw conflict('the workspace must keep at least one owner: make someone else an owner first');
  }
  const updated = await app.records.users.updateOne({ workspaceId: actor.workspaceId, _id: userId }, { $set: { role } });
  if (!updated) throw notFound('member');
  if (updated.role !== target.role) endings.announce({ workspaceId: actor.workspaceId, userId, sessionEnded: false, reason: `role changed to ${role}` });
  return updated;
}

/** Removes a member; their sessions end at once. */
/** Removes a member: their sessions end and the API tokens they made are revoked (both at once). */
export async function removeMember(app: AppContext, endings: AccessEndings, actor: SessionPrincipal, userId: string): Promise<{ removed: UserRecord; revokedTokens: number }> {
  const target = await targetOf(app, actor, userId);
  if (target.role === 'owner' && (await ownerCount(app, actor.workspaceId)) <= 1) {
    throw conflict('the workspace must keep at least one owner');
  }
  await app.records.users.deleteOne({ workspaceId: actor.workspaceId, _id: userId });
  await endUserSessions(app, endings, actor.workspaceId, userId, 'removed from the workspace');
  const revoked = await revokeTokensOf(app, actor.workspaceId, userId);
  return { removed: target, revokedTokens: revoked.length };
}
