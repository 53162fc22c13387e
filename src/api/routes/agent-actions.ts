/** The team's actions on conversations (service-api.md, Conversations): takeover, messages, typing, release. */
import { z } from 'zod';
import { release, takeover, teamMessage, teamTyping } from '../../team/actions.js';
import { closeHandoffsOf } from '../../team/handoff.js';
import { wakeWaitingHandoffs } from '../../team/workspace.js';
import type { TeamServices } from '../../team/services.js';
import { route, type ApiModule } from '../define.js';
import { person } from './auth.js';

export const TeamMessageBody = z.strictObject({
  text: z.string().trim().min(1, 'write something').max(20_000),
  /** true: an internal note for the team, never shown to the visitor. */
  internal: z.boolean().default(false),
});
export const TypingBody = z.strictObject({ active: z.boolean().default(true) });

const TakenOver = z.object({ conversationId: z.string(), takenOverBy: z.object({ userId: z.string(), userName: z.string() }).nullable() });
const MessageShape = z.object({
  id: z.string(), seq: z.number(), role: z.enum(['user', 'assistant', 'human_agent', 'system_event']), text: z.string(),
  modality: z.enum(['text', 'voice']), createdAt: z.number(), authorName: z.string().nullable(), visibility: z.enum(['visible', 'internal']),
  attachments: z.array(z.unknown()),
});

const conversation = (id: string) => ({ type: 'conversation', id });

/** The routes are handed the team's services (the conversation service and the workspace actors). */
export const agentActionsModule = (team: TeamServices): ApiModule => ({
  name: 'agent-actions',
  async start(app) {
    const unsubscribe = app.events.subscribe((e) => {
      if (e.type !== 'conversation.ended' || typeof e.data.conversationId !== 'string') return;
      closeHandoffsOf(app, team, e.workspaceId, e.data.conversationId).catch((err) => app.log.error({ err, conversationId: e.data.conversationId }, 'closing handoffs of an ended conversation failed'));
    });
    app.onClose(unsubscribe);
    await wakeWaitingHandoffs(app, team.workspaceActors);
  },
  routes: [
    route({ op: 'POST /api/v1/conversations/{id}/takeover', response: TakenOver,
      handler: async (ctx) => {
        const { changed, ...r } = await takeover(ctx.app, team, person(ctx), ctx.params.id);
        // Taking over a conversation you already have changes nothing, so it is not logged again.
        if (changed) await ctx.audit('conversation.takeover', conversation(ctx.params.id));
        return r;
      } }),
    route({ op: 'POST /api/v1/conversations/{id}/release', response: TakenOver,
      handler: async (ctx) => {
        const r = await release(ctx.app, team, person(ctx), ctx.params.id);
        await ctx.audit('conversation.release', conversation(ctx.params.id));
        return r;
      } }),
    route({ op: 'POST /api/v1/conversations/{id}/messages', body: TeamMessageBody, response: MessageShape, status: 201,
      handler: async (ctx) => {
        const { message, tookOver } = await teamMessage(ctx.app, team, person(ctx), ctx.params.id, ctx.body);
        if (tookOver) await ctx.audit('conversation.takeover', conversation(ctx.params.id));
        // Which message, never its words: the audit log outlives a visitor's erasure.
        await ctx.audit(ctx.body.internal ? 'conversation.note' : 'conversation.reply', conversation(ctx.params.id), { messageId: message.id });
        return message;
      } }),
    route({ op: 'POST /api/v1/conversations/{id}/typing', body: TypingBody,
      handler: (ctx) => teamTyping(ctx.app, team, person(ctx), ctx.params.id, ctx.body.active) }),
  ],
});
