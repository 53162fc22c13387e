/**
 * The live socket's frames (/api/v1/live; service-api.md, Live socket), as types only: the server's fan-out
 * (src/team/live-hub.ts, whose field lists are checked against these) and the admin panel (admin/src/live.ts)
 * both import them. Every data object also carries workspaceId. Like protocol/widget.ts: no code, `import type` only.
 */
import type { MessageFields } from './widget.js';

/** A stored message as the live socket carries it (service-api.md, Message). */
export interface LiveMessage extends MessageFields {
  attachments: Array<{ id: string; mimeType: string; width: number; height: number }>;
}

/** Each workspace event the live socket carries, by type, and its data (without workspaceId). */
export interface LiveEventData {
  'conversation.started': { botId: string; conversationId: string; visitorId: string };
  /** patch: the changed fields of the conversation (tags, takenOverBy, status, ...). */
  'conversation.updated': { conversationId: string; patch: Record<string, unknown> };
  'conversation.ended': { botId: string; conversationId: string; reason: string };
  'message.created': { botId: string; conversationId: string; message: LiveMessage };
  'message.delta': { conversationId: string; messageId: string; responseId: string; delta: string };
  /** state: thinking, tool, idle, or voice_error (with error: a cascade stage that failed). */
  'agent.status': { conversationId: string; state: string; tool?: { name: string; label: string }; error?: { stage: string; message: string } };
  'visitor.typing': { conversationId: string; active: boolean };
  'lead.captured': { botId: string; conversationId: string | null; leadId: string; fields: Record<string, string> };
  'handoff.requested': { botId: string; conversationId: string; handoffId: string; reason: string | null; summary: string | null };
  'handoff.accepted': { botId: string; conversationId: string; handoffId: string; userId: string; userName: string };
  'handoff.resolved': { botId: string; conversationId: string; handoffId: string | null; by: string };
  'feedback.received': { botId: string; conversationId: string; messageId: string | null; kind: 'thumb' | 'csat'; value: number; comment?: string };
  'bot.published': { botId: string; version: number };
  'tool.called': { conversationId: string; name: string; isError: boolean; durationMs: number };
  /** Not in the spec's table: the team list needs it. */
  'presence.changed': { userId: string; presence: 'online' | 'away' | 'offline' };
}

export type LiveEventType = keyof LiveEventData;

/** A workspace event as the socket sends it. */
export type LiveEventFrame = { [K in LiveEventType]: { type: K; data: LiveEventData[K] & { workspaceId: string } } }[LiveEventType];

/** What the live socket sends: hello first, the workspace's events, pong, and error for a frame it could not read. */
export type LiveServerFrame =
  | LiveEventFrame
  | { type: 'hello'; data: { workspaceId: string } }
  | { type: 'pong'; data: { workspaceId: string } }
  | { type: 'error'; data: { message: string; code?: string; workspaceId?: string } };

/** What the panel sends: its presence, or a ping. */
export type LiveClientFrame = { t: 'presence'; presence: 'online' | 'away' } | { t: 'ping' };
