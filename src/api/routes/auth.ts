/** Sign-in and setup (service-api.md): first-run setup, sign-in and out, the signed-in user, invitations. */
import type { AppContext } from '../../app/context.js';
import { changePassword, setupNeeded, setupWorkspace, signIn, type AccountThrottles } from '../../auth/accounts.js';
import type { AccessEndings } from '../../auth/access-ended.js';
import { recordAudit } from '../../auth/audit.js';
import { userView, type UserRecord } from '../../auth/records.js';
import { clearSessionCookie, createSession, endSession, endUserSessions, sessionCookie, sessionRemainingMs, type SessionPrincipal } from '../../auth/sessions.js';
import { acceptInvite, findInvite } from '../../auth/team.js';
import { unauthorized } from '../../kernel/errors.js';
import { reply, route, type ApiContext, type ApiModule } from '../define.js';
import { AcceptBodySchema, InviteInfoSchema, LoginBodySchema, MeSchema, PasswordBodySchema, SetupBodySchema, SetupStatusSchema, SignedInSchema } from './account-schemas.js';

/** The session principal of a route that the operation table limits to signed-in people. */
export function person(ctx: ApiContext<any, any>): SessionPrincipal {
  if (ctx.principal?.kind !== 'session') throw unauthorized();
  return ctx.principal;
}

async function workspaceRef(app: AppContext, workspaceId: string) {
  const ws = await app.records.workspaces.findById(workspaceId, workspaceId);
  return { id: workspaceId, name: ws?.settings.name ?? '' };
}

/** Starts a session for `user` and answers with the cookie, the user, the workspace and the CSRF token. */
async function signedIn(app: AppContext, user: UserRecord, status: number, action: string, detail?: Record<string, unknown>) {
  const s = await createSession(app, user);
  await recordAudit(app, user.workspaceId, s.principal, action, { type: 'user', id: user._id }, detail);
  return reply({
    status, cookies: [s.cookie], headers: { 'Cache-Control': 'no-store' },
    body: { user: userView(user), workspace: await workspaceRef(app, user.workspaceId), csrfToken: s.csrfToken },
  });
}

/** What the account routes are handed: the sign-in throttles, and who is told when sessions end. */
export interface AuthServices {
  accountThrottles: AccountThrottles;
  accessEndings: AccessEndings;
}

/** Accounts and sign-in; failed attempts count against the throttles the root made. */
export const authModule = (services: AuthServices): ApiModule => ({
  name: 'auth',
  routes: [
    route({
      op: 'GET /api/v1/setup', response: SetupStatusSchema,
      handler: async ({ app }) => ({ needsSetup: await setupNeeded(app), signIn: { methods: ['password'] } }),
    }),
    route({
      op: 'POST /api/v1/setup', body: SetupBodySchema, response: SignedInSchema, status: 201,
      handler: async ({ app, body }) => {
        const { user } = await setupWorkspace(app, body);
        return signedIn(app, user, 201, 'workspace.created');
      },
    }),
    route({
      op: 'POST /api/v1/auth/login', body: LoginBodySchema, response: SignedInSchema,
      handler: async ({ app, body, req }) => {
        const user = await signIn(app, services.accountThrottles, body.email, body.password, req.ip);
        return signedIn(app, user, 200, 'auth.login', { ip: req.ip });
      },
    }),
    route({
      op: 'POST /api/v1/auth/logout', status: 204,
      handler: async (ctx) => {
        const p = person(ctx);
        await endSession(ctx.app, services.accessEndings, p.workspaceId, p.sessionId);
        await ctx.audit('auth.logout', { type: 'user', id: p.userId });
        return reply({ status: 204, cookies: [clearSessionCookie(ctx.app)] });
      },
    }),
    route({
      op: 'GET /api/v1/me', response: MeSchema,
      handler: async (ctx) => {
        const p = person(ctx);
        const user = await ctx.app.records.users.findById(p.workspaceId, p.userId);
        if (!user) throw unauthorized();
        // Re-sending the cookie with the session's remaining lifetime keeps the browser's copy sliding too.
        const value = ctx.req.cookies.sc_session;
        const remaining = await sessionRemainingMs(ctx.app, p);
        return reply({
          headers: { 'Cache-Control': 'no-store' }, cookies: value ? [sessionCookie(ctx.app, value, remaining)] : [],
          body: { user: userView(user), workspace: await workspaceRef(ctx.app, p.workspaceId), csrfToken: p.csrfToken, server: { version: ctx.app.config.version } },
        });
      },
    }),
    route({
      op: 'POST /api/v1/me/password', body: PasswordBodySchema, status: 204,
      handler: async (ctx) => {
        const p = person(ctx);
        await changePassword(ctx.app, services.accountThrottles, p.workspaceId, p.userId, ctx.body.currentPassword, ctx.body.newPassword);
        const ended = await endUserSessions(ctx.app, services.accessEndings, p.workspaceId, p.userId, 'password changed', p.sessionId);
        await ctx.audit('user.password_changed', { type: 'user', id: p.userId }, { sessionsEnded: ended });
      },
    }),
    route({
      op: 'GET /api/v1/invites/{token}', response: InviteInfoSchema,
      handler: async ({ app, params }) => {
        const { invite, workspaceName } = await findInvite(app, params.token);
        return { workspace: { name: workspaceName }, email: invite.email, role: invite.role, expiresAt: invite.expiresAt };
      },
    }),
    route({
      op: 'POST /api/v1/invites/{token}/accept', body: AcceptBodySchema, response: SignedInSchema, status: 201,
      handler: async ({ app, params, body }) => {
        const user = await acceptInvite(app, params.token, body);
        return signedIn(app, user, 201, 'invite.accepted', { role: user.role });
      },
    }),
  ],
});
