/** Workspace-wide access (service-api.md, Workspace, team and API tokens): API tokens, settings, deletion, audit. */
import { clearSessionCookie } from '../../auth/sessions.js';
import { getSettings, SettingsPatchSchema, updateSettings } from '../../auth/settings.js';
import { createApiToken, revokeApiToken, tokenView } from '../../auth/tokens.js';
import type { WorkspaceDeletion } from '../../auth/workspace-cleanup.js';
import { invalid, notFound } from '../../kernel/errors.js';
import { reply, route, type ApiModule } from '../define.js';
import { AuditPageSchema, AuditQuerySchema, SettingsAnswerSchema, TokenBodySchema, TokenCreatedSchema, TokenListSchema } from './account-schemas.js';
import { person } from './auth.js';

/** The workspace routes; deleting one goes through the root's WorkspaceDeletion (every area's cleanup runs). */
export const workspaceModule = (deletion: WorkspaceDeletion): ApiModule => ({
  name: 'workspace',
  routes: [
    route({
      op: 'GET /api/v1/tokens', response: TokenListSchema,
      handler: async ({ app, workspaceId }) => ({ items: (await app.records.apiTokens.find({ workspaceId })).map(tokenView) }),
    }),
    route({
      op: 'POST /api/v1/tokens', body: TokenBodySchema, response: TokenCreatedSchema, status: 201,
      handler: async (ctx) => {
        const p = person(ctx);
        const expiresAt = ctx.body.expiresAt ?? null;
        if (expiresAt !== null && expiresAt <= ctx.app.clock.now()) {
          throw invalid('expiresAt: must be in the future', [{ path: 'expiresAt', message: 'must be in the future' }]);
        }
        const { record, value } = await createApiToken(ctx.app, p.workspaceId, { name: ctx.body.name, scopes: ctx.body.scopes, expiresAt }, { id: p.userId, name: p.userName });
        await ctx.audit('token.created', { type: 'token', id: record._id }, { name: record.name, scopes: record.scopes, expiresAt });
        return reply({ status: 201, headers: { 'Cache-Control': 'no-store' }, body: { token: tokenView(record), value } });
      },
    }),
    route({
      op: 'DELETE /api/v1/tokens/{id}', status: 204,
      handler: async (ctx) => {
        const tok = await revokeApiToken(ctx.app, ctx.workspaceId, ctx.params.id);
        if (!tok) throw notFound('API token');
        await ctx.audit('token.revoked', { type: 'token', id: tok._id }, { name: tok.name });
      },
    }),
    route({
      op: 'GET /api/v1/settings', response: SettingsAnswerSchema,
      handler: ({ app, workspaceId }) => getSettings(app, workspaceId),
    }),
    route({
      op: 'PATCH /api/v1/settings', body: SettingsPatchSchema, response: SettingsAnswerSchema,
      handler: async (ctx) => {
        const changed = Object.keys(ctx.body);
        const settings = await updateSettings(ctx.app, ctx.workspaceId, ctx.body);
        if (changed.length) await ctx.audit('settings.changed', { type: 'workspace', id: ctx.workspaceId }, { fields: changed });
        return settings;
      },
    }),
    route({
      op: 'DELETE /api/v1/workspace', status: 204,
      handler: async (ctx) => {
        const p = person(ctx);
        // The audit log goes with the workspace, so the server log keeps the record of who deleted it.
        ctx.app.log.warn({ workspaceId: p.workspaceId, userId: p.userId }, 'workspace deleted by its owner');
        await deletion.delete(p.workspaceId);
        return reply({ status: 204, cookies: [clearSessionCookie(ctx.app)] });
      },
    }),
    route({
      op: 'GET /api/v1/audit', query: AuditQuerySchema, response: AuditPageSchema,
      handler: async ({ app, workspaceId, query }) => {
        const rows = await app.records.audit.find({ workspaceId }, { limit: query.limit + 1, before: query.before });
        const page = rows.slice(0, query.limit);
        return {
          items: page.map((e) => ({ id: e._id, at: e.at, actor: e.actor, action: e.action, target: e.target, ...(e.detail ? { detail: e.detail } : {}) })),
          nextBefore: rows.length > query.limit ? page[page.length - 1]._id : null,
        };
      },
    }),
  ],
});
