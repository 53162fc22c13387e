/** Visitors (service-api.md, Visitors: data requests): find, export, erase. */
import { z } from 'zod';
import { reply, route, type ApiModule } from '../define.js';
import { listOf } from './list-schemas.js';
import type { ConversationService } from '../../../actors/conversation/index.js';
import { eraseVisitor, exportVisitor, findVisitors } from '../../visitors/service.js';

export const FindQuery = z.strictObject({
  email: z.string().trim().min(3).max(254).optional(),
  userId: z.string().min(1).max(256).optional(),
}).refine((q) => q.email || q.userId, { message: 'give email or userId', path: ['email'] });
const VisitorShape = z.object({
  id: z.string(), userId: z.string().nullable(), name: z.string().nullable(), email: z.string().nullable(), createdAt: z.number(), lastSeenAt: z.number(),
});

/** The visitors found, and the leads holding the e-mail that belong to no visitor (added by hand or by API). */
const FindResponse = listOf(VisitorShape).extend({ leads: z.array(z.looseObject({ id: z.string(), fields: z.record(z.string(), z.string()) })) });

/** Everything stored about a visitor; nested records keep the fields their own endpoints show. */
const ExportResponse = z.object({
  exportedAt: z.string(), visitor: VisitorShape,
  conversations: z.array(z.looseObject({ id: z.string(), botId: z.string(), messages: z.array(z.looseObject({})), toolCalls: z.array(z.looseObject({})), handoffs: z.array(z.looseObject({})) })),
  attachments: z.array(z.looseObject({ id: z.string(), mimeType: z.string(), dataBase64: z.string().nullable() })),
  leads: z.array(z.looseObject({ id: z.string() })),
  feedback: z.array(z.looseObject({ conversationId: z.string() })),
  knowledgeGapQuestions: z.array(z.object({ question: z.string(), conversationId: z.string().nullable(), askedAt: z.number() })),
});
const ErasedResponse = z.object({ conversations: z.number(), messages: z.number(), leads: z.number(), attachments: z.number() });

/** The routes are handed the conversation service (an erasure closes the visitor's open conversations first). */
export const visitorsModule = (conversations: ConversationService): ApiModule => ({
  name: 'visitors',
  routes: [
    route({ op: 'GET /api/v1/visitors', query: FindQuery, response: FindResponse,
      handler: ({ app, workspaceId, query }) => findVisitors(app, workspaceId, query) }),
    route({ op: 'GET /api/v1/visitors/{id}/export', response: ExportResponse,
      handler: async (ctx) => {
        const data = await exportVisitor(ctx.app, ctx.workspaceId, ctx.params.id);
        await ctx.audit('visitor.export', { type: 'visitor', id: ctx.params.id });
        return reply({
          status: 200, body: data,
          headers: { 'Content-Disposition': `attachment; filename="visitor-${ctx.params.id}.json"`, 'Cache-Control': 'no-store' },
        });
      } }),
    route({ op: 'DELETE /api/v1/visitors/{id}', response: ErasedResponse,
      handler: async (ctx) => {
        const erased = await eraseVisitor(ctx.app, conversations, ctx.workspaceId, ctx.params.id);
        await ctx.audit('visitor.erase', { type: 'visitor', id: ctx.params.id }, erased);
        return erased;
      } }),
  ],
});
