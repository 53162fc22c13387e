import { z } from 'zod';
import type { ConversationService } from '../../../actors/conversation/index.js';
import { publicAttachments, widgetMessage, type ConversationRecord } from '../../records/conversations.js';
import { transcriptMarkdown } from '../../conversation/transcript.js';
import { teamMaySee, transcriptAttachments } from '../../voice/camera.js';
import { notFound } from '../../kernel/errors.js';
import type { AppContext } from '../../app/context.js';
import { deleteConversations } from '../../retention/delete-conversations.js';
import { type HandoffRecord } from '../../records/handoffs.js';
import { reply, route, type ApiModule } from '../define.js';

const ConversationSummary = z.object({
  id: z.string(), botId: z.string(), visitorId: z.string(), verified: z.boolean(), status: z.enum(['open', 'ended']),
  endReason: z.string().nullable(), tags: z.array(z.string()), takenOverBy: z.object({ userId: z.string(), userName: z.string() }).nullable(),
  messageCount: z.number(), costUsd: z.number(), csat: z.number().nullable(), page: z.object({ url: z.string(), title: z.string() }),
  createdAt: z.number(), updatedAt: z.number(), lastMessageAt: z.number(), endedAt: z.number().nullable(),
  handoff: z.object({
    id: z.string(), state: z.enum(['requested', 'accepted']), reason: z.string().nullable(), summary: z.string().nullable(), requestedAt: z.number(),
  }).nullable().describe('the open request for a person: requested (waiting for someone to take over) or accepted; null when none is open'),
});
const VisitorShape = z.object({ name: z.string().nullable(), email: z.string().nullable() })
  .describe("who the visitor is, when known: from a verified identity, else from the newest lead they left (lists and transcripts)");
type VisitorInfo = z.infer<typeof VisitorShape>;
const LastMessage = z.object({ role: z.enum(['user', 'assistant', 'human_agent', 'system_event']), text: z.string(), createdAt: z.number() }).nullable()
  .describe('the last message the visitor could see, its text cut to 140 characters (lists only)');
const Message = z.object({
  id: z.string(), seq: z.number(), role: z.enum(['user', 'assistant', 'human_agent', 'system_event']), text: z.string(),
  modality: z.enum(['text', 'voice']), createdAt: z.number(), authorName: z.string().nullable(), visibility: z.string(),
  attachments: z.array(z.object({ id: z.string(), mimeType: z.string(), width: z.number(), height: z.number() })),
  citations: z.array(z.object({ title: z.string(), url: z.string().nullable().optional(), sourceId: z.string() })).optional()
    .describe('the knowledge sources the reply used (behavior.citations), as the widget shows them'),
});
const Picture = z.object({ id: z.string(), mimeType: z.string(), width: z.number(), height: z.number() });
const ToolCall = z.object({
  id: z.string(), messageId: z.string(), round: z.number(), name: z.string(), arguments: z.string(), result: z.string(), isError: z.boolean(), durationMs: z.number(), createdAt: z.number(),
  attachments: z.array(Picture).describe("pictures the tool took (look_at_camera's camera frame), when the team may see them"),
});
const TranscriptPicture = Picture.extend({
  createdAt: z.number(), source: z.enum(['upload', 'camera']), messageId: z.string().nullable(), toolCallId: z.string().nullable(), description: z.string().optional(),
}).describe('a picture of the conversation; with neither messageId nor toolCallId a live-view camera frame (continuous mode); description: the vision proxy\'s words');
const Transcript = ConversationSummary.extend({
  visitor: VisitorShape, summary: z.string().nullable(), messages: z.array(Message), toolCalls: z.array(ToolCall),
  attachments: z.array(TranscriptPicture).describe('every picture the team may see (uploads and camera frames; frames taken with vision.webcam.shareWithHumanAgents off are left out)'),
  feedback: z.array(z.object({ kind: z.enum(['thumb', 'csat']), messageId: z.string().nullable(), value: z.number(), comment: z.string().optional(), createdAt: z.number() })),
});

type OpenHandoff = Pick<HandoffRecord, '_id' | 'state' | 'reason' | 'summary' | 'requestedAt'>;
const handoffView = (h: OpenHandoff | undefined) => (h && (h.state === 'requested' || h.state === 'accepted')
  ? { id: h._id, state: h.state, reason: h.reason, summary: h.summary, requestedAt: h.requestedAt } : null);

/** The open handoffs of these conversations, by conversation (the inbox's "waiting for a person"). */
async function openHandoffs(app: AppContext, workspaceId: string, ids: string[]): Promise<Map<string, OpenHandoff>> {
  if (!ids.length) return new Map();
  const open = await app.records.handoffs.find({ workspaceId, conversationId: { $in: ids }, state: { $in: ['requested', 'accepted'] } });
  return new Map(open.map((h) => [h.conversationId, h]));
}

const PREVIEW_CHARS = 140;

/** The inbox's preview line: each conversation's last visible message (one indexed read per conversation). */
async function lastMessages(app: AppContext, workspaceId: string, ids: string[]): Promise<Map<string, z.infer<typeof LastMessage>>> {
  const db = app.records;
  const rows = await Promise.all(ids.map((conversationId) => db.messages.find({ workspaceId, conversationId, visibility: 'visible' }, { sort: [['seq', -1]], limit: 1 })));
  return new Map(rows.flatMap((r) => r.map((m) => [m.conversationId, { role: m.role, text: m.text.slice(0, PREVIEW_CHARS), createdAt: m.createdAt }] as const)));
}

const NOBODY: VisitorInfo = { name: null, email: null };

/** Names and e-mails of these visitors: a verified identity's, else the newest lead's fields name and email. */
async function visitorsOf(app: AppContext, workspaceId: string, visitorIds: string[]): Promise<Map<string, VisitorInfo>> {
  const ids = [...new Set(visitorIds)];
  const out = new Map<string, VisitorInfo>();
  if (!ids.length) return out;
  const [people, leads] = await Promise.all([
    app.records.visitors.find({ workspaceId, _id: { $in: ids } }),
    app.records.leads.find({ workspaceId, visitorId: { $in: ids } }),
  ]);
  for (const l of leads.sort((a, b) => a.createdAt - b.createdAt)) {
    if (l.visitorId) out.set(l.visitorId, { name: l.fields.name || out.get(l.visitorId)?.name || null, email: l.fields.email || out.get(l.visitorId)?.email || null });
  }
  for (const v of people) {
    const lead = out.get(v._id);
    if (v.name || v.email) out.set(v._id, { name: v.name ?? lead?.name ?? null, email: v.email ?? lead?.email ?? null });
  }
  return out;
}

const summaryOf = (c: ConversationRecord, h?: OpenHandoff) => ({
  id: c._id, botId: c.botId, visitorId: c.visitorId, verified: c.verified, status: c.status, endReason: c.endReason, tags: c.tags,
  takenOverBy: c.takenOverBy, messageCount: c.messageCount, costUsd: c.costUsd, csat: c.csat, page: c.page,
  createdAt: c.createdAt, updatedAt: c.updatedAt, lastMessageAt: c.lastMessageAt, endedAt: c.endedAt, handoff: handoffView(h),
});

async function load(app: AppContext, workspaceId: string, id: string): Promise<ConversationRecord> {
  const c = await app.records.conversations.findById(workspaceId, id);
  if (!c) throw notFound('conversation');
  return c;
}

/** The whole record of a conversation: messages (with internal notes), tool calls, feedback. */
export async function transcriptOf(app: AppContext, c: ConversationRecord): Promise<z.infer<typeof Transcript>> {
  const db = app.records;
  const scope = { workspaceId: c.workspaceId, conversationId: c._id };
  const [messages, toolCalls, feedback, open, who, pictures] = await Promise.all([
    db.messages.find(scope, { sort: [['seq', 1]] }),
    db.toolCalls.find(scope, { sort: [['_id', 1]] }),
    db.feedback.find(scope, { sort: [['_id', 1]] }),
    openHandoffs(app, c.workspaceId, [c._id]),
    visitorsOf(app, c.workspaceId, [c.visitorId]),
    db.attachments.find(scope),
  ]);
  return {
    ...summaryOf(c, open.get(c._id)), visitor: who.get(c.visitorId) ?? NOBODY, summary: c.summary?.text ?? null,
    messages: messages.map(widgetMessage),
    toolCalls: toolCalls.map((t) => ({ id: t._id, messageId: t.messageId, round: t.round, name: t.name, arguments: t.arguments, result: t.result, isError: t.isError, durationMs: t.durationMs, createdAt: t.createdAt, attachments: publicAttachments(t.attachments ?? []) })),
    attachments: transcriptAttachments(pictures, messages, toolCalls),
    feedback: feedback.map((f) => ({ kind: f.kind, messageId: f.messageId, value: f.value, ...(f.comment ? { comment: f.comment } : {}), createdAt: f.createdAt })),
  };
}

/** The conversations routes; closing one goes through the conversation service the root made. */
export const conversationsModule = (conversations: ConversationService): ApiModule => ({
  name: 'conversations',
  routes: [
    route({
      op: 'GET /api/v1/conversations',
      query: z.object({ botId: z.string().max(80).optional(), limit: z.coerce.number().int().min(1).max(100).default(25), before: z.string().max(80).optional() }),
      response: z.object({ items: z.array(ConversationSummary.extend({ lastMessage: LastMessage, visitor: VisitorShape })), nextBefore: z.string().nullable() }),
      async handler({ app, workspaceId, query }) {
        const rows = await app.records.conversations.find(
          { workspaceId, ...(query.botId ? { botId: query.botId } : {}) }, { limit: query.limit + 1, before: query.before },
        );
        const page = rows.slice(0, query.limit);
        const ids = page.map((c) => c._id);
        const [open, last, who] = await Promise.all([openHandoffs(app, workspaceId, ids), lastMessages(app, workspaceId, ids), visitorsOf(app, workspaceId, page.map((c) => c.visitorId))]);
        return { items: page.map((c) => ({ ...summaryOf(c, open.get(c._id)), lastMessage: last.get(c._id) ?? null, visitor: who.get(c.visitorId) ?? NOBODY })), nextBefore: rows.length > query.limit ? page[page.length - 1]._id : null };
      },
    }),
    route({
      op: 'GET /api/v1/conversations/{id}',
      response: Transcript,
      async handler({ app, workspaceId, params }) {
        return transcriptOf(app, await load(app, workspaceId, params.id));
      },
    }),
    route({
      op: 'GET /api/v1/conversations/{id}/export',
      response: Transcript,
      produces: { contentTypes: ['application/json', 'text/markdown'], description: 'the transcript as a download: JSON (format=json, the default) or Markdown (format=md)' },
      query: z.object({ format: z.enum(['md', 'json']).default('json') }),
      async handler({ app, workspaceId, params, query }) {
        const t = await transcriptOf(app, await load(app, workspaceId, params.id));
        const md = query.format === 'md';
        return reply({
          status: 200,
          headers: {
            'Content-Type': md ? 'text/markdown; charset=utf-8' : 'application/json; charset=utf-8',
            'Content-Disposition': `attachment; filename="${t.id}.${md ? 'md' : 'json'}"`,
          },
          body: md ? transcriptMarkdown(t) : JSON.stringify(t, null, 2),
        });
      },
    }),
    route({
      op: 'POST /api/v1/conversations/{id}/tags',
      body: z.object({ tags: z.array(z.string().trim().min(1).max(50)).max(50) }),
      response: ConversationSummary,
      async handler({ app, workspaceId, params, body, audit }) {
        await load(app, workspaceId, params.id);
        const tags = [...new Set(body.tags)];
        const updated = await app.records.conversations.updateOne({ workspaceId, _id: params.id }, { $set: { tags, updatedAt: app.clock.now() } });
        await app.events.publish(workspaceId, 'conversation.updated', { conversationId: params.id, patch: { tags } });
        await audit('conversation.tags', { type: 'conversation', id: params.id }, { tags });
        return summaryOf(updated!, (await openHandoffs(app, workspaceId, [params.id])).get(params.id));
      },
    }),
    route({
      op: 'POST /api/v1/conversations/{id}/close',
      response: ConversationSummary,
      async handler({ app, workspaceId, params, audit }) {
        await load(app, workspaceId, params.id);
        await conversations.close(params.id, 'closed_by_team');
        await audit('conversation.close', { type: 'conversation', id: params.id });
        return summaryOf(await load(app, workspaceId, params.id));
      },
    }),
    route({
      op: 'DELETE /api/v1/conversations/{id}',
      async handler({ app, workspaceId, params, audit }) {
        await load(app, workspaceId, params.id);
        // The same deletion retention runs: actor stopped first, then everything of the conversation.
        const { attachments } = await deleteConversations(app, conversations, workspaceId, [params.id]);
        await audit('conversation.delete', { type: 'conversation', id: params.id }, { files: attachments });
      },
    }),
    route({
      op: 'GET /api/v1/attachments/{id}',
      produces: { contentTypes: ['image/*'], description: 'the stored image (re-encoded raster: image/jpeg, image/png or image/webp)' },
      async handler({ app, workspaceId, params }) {
        const file = await app.store.files.get(workspaceId, params.id);
        const rec = await app.records.attachments.findById(workspaceId, params.id);
        // Camera frames taken while the bot did not share them with the team (vision.webcam.shareWithHumanAgents) stay hidden.
        if (!file || !rec || !teamMaySee(rec)) throw notFound('attachment');
        return reply({
          status: 200,
          // Only re-encoded raster images are stored (the transport adds nosniff to every answer).
          headers: { 'Content-Type': rec.mimeType, 'Cache-Control': 'private, max-age=3600', 'Content-Disposition': 'inline' },
          body: file.data,
        });
      },
    }),
  ],
});
