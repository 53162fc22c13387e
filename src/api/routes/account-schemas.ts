/** Request and response shapes of the sign-in, team, token, settings and audit routes (they feed OpenAPI). */
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH, passwordProblem, TOO_SHORT } from '../../auth/password-policy.js';
import { PRESENCES } from '../../auth/records.js';
import { SettingsSchema } from '../../auth/settings.js';
import { ROLES, SCOPES, type Role, type Scope } from '../../auth/roles.js';
import { listOf, pageOf } from './list-schemas.js';

export const RoleSchema = z.enum(ROLES as [Role, ...Role[]]);
export const ScopeSchema = z.enum(SCOPES as [Scope, ...Scope[]]);
export const PresenceSchema = z.enum(PRESENCES);
export const EmailSchema = z.email().max(254);
/** Long passphrases welcome; the upper bound only keeps hashing cheap to refuse. Weak ones are refused (password-policy.ts). */
export const PasswordSchema = z.string().min(MIN_PASSWORD_LENGTH, TOO_SHORT).max(256).superRefine((p, ctx) => {
  const problem = p.length >= MIN_PASSWORD_LENGTH ? passwordProblem(p) : null;
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
export const PersonNameSchema = z.string().trim().min(1).max(100);
const Ms = z.number().int().describe('milliseconds since 1970-01-01 UTC');

export const UserSchema = z.object({
  id: z.string(), name: z.string(), email: z.string(), role: RoleSchema, presence: PresenceSchema, presenceAt: Ms, createdAt: Ms,
});
export const WorkspaceRefSchema = z.object({ id: z.string(), name: z.string() });

/** What setup, sign-in and accepting an invitation answer (the session cookie comes in Set-Cookie). */
export const SignedInSchema = z.object({
  user: UserSchema, workspace: WorkspaceRefSchema,
  csrfToken: z.string().describe('send as X-CSRF-Token on every state-changing request with this session'),
});
export const MeSchema = SignedInSchema.extend({ server: z.object({ version: z.string() }) });

export const SetupStatusSchema = z.object({
  needsSetup: z.boolean(),
  signIn: z.object({ methods: z.array(z.literal('password')) }),
});
export const SetupBodySchema = z.object({ email: EmailSchema, password: PasswordSchema, name: PersonNameSchema, workspaceName: z.string().trim().min(1).max(100) });
export const LoginBodySchema = z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(256) });
export const PasswordBodySchema = z.object({ currentPassword: z.string().min(1).max(256), newPassword: PasswordSchema });
export const InviteInfoSchema = z.object({ workspace: z.object({ name: z.string() }), email: z.string(), role: RoleSchema, expiresAt: Ms });
export const AcceptBodySchema = z.object({ name: PersonNameSchema, password: PasswordSchema });

export const InviteSchema = z.object({
  id: z.string(), email: z.string(), role: RoleSchema, createdAt: Ms, expiresAt: Ms, invitedBy: z.object({ id: z.string(), name: z.string() }),
});
/** The people in the workspace, plus the invitations not yet accepted. */
export const MembersSchema = listOf(UserSchema).extend({ invites: z.array(InviteSchema) });
export const InviteBodySchema = z.object({ email: EmailSchema, role: RoleSchema });
export const InviteCreatedSchema = z.object({ invite: InviteSchema, link: z.string().describe('send this to the invitee; it works once, for 7 days') });
export const RoleBodySchema = z.object({ role: RoleSchema });
export const PresenceBodySchema = z.object({ presence: PresenceSchema });
export const PresenceAnswerSchema = z.object({ presence: PresenceSchema, presenceAt: Ms });

export const TokenSchema = z.object({
  id: z.string(), name: z.string(), scopes: z.array(ScopeSchema), role: RoleSchema.describe('the highest role its scopes act as'),
  createdAt: Ms, createdBy: z.object({ id: z.string(), name: z.string() }), expiresAt: Ms.nullable(), lastUsedAt: Ms.nullable(),
});
export const TokenListSchema = listOf(TokenSchema);
export const TokenBodySchema = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(ScopeSchema).min(1),
  expiresAt: Ms.nullable().optional(),
});
export const TokenCreatedSchema = z.object({ token: TokenSchema, value: z.string().describe('the token itself, shown only in this answer') });

export const SettingsAnswerSchema = SettingsSchema;

export const AuditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.string().regex(/^aud_[0-9a-hjkmnp-tv-z]{26}$/, 'must be the nextBefore of an earlier page').optional(),
});
export const AuditEntrySchema = z.object({
  id: z.string(), at: Ms,
  actor: z.object({ kind: z.enum(['user', 'token', 'system']), id: z.string(), name: z.string() }),
  action: z.string(), target: z.object({ type: z.string(), id: z.string() }).nullable(), detail: z.record(z.string(), z.unknown()).optional(),
});
export const AuditPageSchema = pageOf(AuditEntrySchema);
