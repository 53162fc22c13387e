/** The team (service-api.md, Workspace, team and API tokens): members, invitations, roles, presence. */
import type { AccessEndings } from '../../auth/access-ended.js';
import { setPresence } from '../../auth/presence.js';
import { userView } from '../../auth/records.js';
import { changeRole, inviteMember, inviteView, openInvites, removeMember } from '../../auth/team.js';
import { notFound } from '../../kernel/errors.js';
import { route, type ApiModule } from '../define.js';
import { InviteBodySchema, InviteCreatedSchema, MembersSchema, PresenceAnswerSchema, PresenceBodySchema, RoleBodySchema, UserSchema } from './account-schemas.js';
import { person } from './auth.js';

/** The team routes; a role change or removal tells `endings` (live sockets close, kept sessions are read again). */
export const teamModule = (endings: AccessEndings): ApiModule => ({
  name: 'team',
  routes: [
    route({
      op: 'GET /api/v1/members', response: MembersSchema,
      handler: async ({ app, workspaceId }) => ({
        items: (await app.records.users.find({ workspaceId }, { sort: [['createdAt', 1]] })).map(userView),
        invites: (await openInvites(app, workspaceId)).map(inviteView),
      }),
    }),
    route({
      op: 'POST /api/v1/members/invite', body: InviteBodySchema, response: InviteCreatedSchema, status: 201,
      handler: async (ctx) => {
        const { invite, link } = await inviteMember(ctx.app, person(ctx), ctx.body.email, ctx.body.role);
        await ctx.audit('member.invited', { type: 'invite', id: invite._id }, { email: invite.email, role: invite.role });
        return { invite: inviteView(invite), link };
      },
    }),
    route({
      op: 'DELETE /api/v1/members/invites/{id}', status: 204,
      handler: async (ctx) => {
        const inv = await ctx.app.records.invites.findById(ctx.workspaceId, ctx.params.id);
        if (!inv || !(await ctx.app.records.invites.deleteOne({ workspaceId: ctx.workspaceId, _id: inv._id }))) throw notFound('invitation');
        await ctx.audit('invite.cancelled', { type: 'invite', id: inv._id }, { email: inv.email });
      },
    }),
    route({
      op: 'PATCH /api/v1/members/{id}', body: RoleBodySchema, response: UserSchema,
      handler: async (ctx) => {
        const before = await ctx.app.records.users.findById(ctx.workspaceId, ctx.params.id);
        const updated = await changeRole(ctx.app, endings, person(ctx), ctx.params.id, ctx.body.role);
        await ctx.audit('member.role_changed', { type: 'user', id: updated._id }, { from: before?.role, to: updated.role });
        return userView(updated);
      },
    }),
    route({
      op: 'DELETE /api/v1/members/{id}', status: 204,
      handler: async (ctx) => {
        const { removed, revokedTokens } = await removeMember(ctx.app, endings, person(ctx), ctx.params.id);
        await ctx.audit('member.removed', { type: 'user', id: removed._id }, { email: removed.email, role: removed.role, tokensRevoked: revokedTokens });
      },
    }),
    route({
      op: 'PUT /api/v1/me/presence', body: PresenceBodySchema, response: PresenceAnswerSchema,
      handler: async (ctx) => {
        const p = person(ctx);
        if (!(await setPresence(ctx.app, p.workspaceId, p.userId, ctx.body.presence))) throw notFound('member');
        return { presence: ctx.body.presence, presenceAt: ctx.app.clock.now() };
      },
    }),
  ],
});
