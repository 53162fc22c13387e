/** Visitors (service-api.md, Visitors: data requests): find, export, erase. */
import { z } from 'zod';
import { reply, route, type ApiModule } from '../define.js';
import { listOf } from './list-schemas.js';
import { eraseVisitor, exportVisitor, findVisitors } from '../../visitors/service.js';

export const FindQuery = z.strictObject({
  email: z.string().trim().min(3).max(254).optional(),
  userId: z.string().min(1).max(256).optional(),
}).refine((q) => q.email || q.userId, { message: 'give email or userId', path: ['email'] });
const VisitorShape = z.object({
  id: z.string(), userId: z.string().nullable(), name: z.string().nullable(), email: z.string().nullable(), createdAt: z.number(), lastSeenAt: z.number(),
});

export const visitorsModule: ApiModule = {
  name: 'visitors',
  routes: [
    route({ op: 'GET /api/v1/visitors', query: FindQuery, response: listOf(VisitorShape),
      handler: ({ app, workspaceId, query }) => findVisitors(app, workspaceId, query) }),
    route({ op: 'GET /api/v1/visitors/{id}/export',
      handler: async (ctx) => {
        const data = await exportVisitor(ctx.app, ctx.workspaceId, ctx.params.id);
        await ctx.audit('visitor.export', { type: 'visitor', id: ctx.params.id });
        return reply({
          status: 200, body: data,
          headers: { 'Content-Disposition': `attachment; filename="visitor-${ctx.params.id}.json"`, 'Cache-Control': 'no-store' },
        });
      } }),
    route({ op: 'DELETE /api/v1/visitors/{id}',
      handler: async (ctx) => {
        const erased = await eraseVisitor(ctx.app, ctx.workspaceId, ctx.params.id);
        await ctx.audit('visitor.erase', { type: 'visitor', id: ctx.params.id }, erased);
        return erased;
      } }),
  ],
};
