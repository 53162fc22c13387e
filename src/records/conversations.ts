import type { RecordSpecs } from '../app/records.js';
import type { BotConfig } from '../bots/config/index.js';
import type { Collection, Doc } from '../store/types.js';
import type { WidgetMessage } from '../../protocol/widget.js';

/** Stored records of the conversation engine. One collection each; every record carries workspaceId. */

export type MessageRole = 'user' | 'assistant' | 'human_agent' | 'system_event';
export type EndReason = 'closed_by_team' | 'idle' | 'visitor_new_conversation' | 'agent_goodbye';

export interface AttachmentRef {
  id: string;
  mimeType: string;
  width: number;
  height: number;
  /** A camera frame (src/voice/camera.ts): whether the team may see it, and the vision proxy's words for it. */
  camera?: { shared: boolean; description?: string };
}

export interface ConversationRecord extends Doc {
  botId: string;
  visitorId: string;
  /** The visitor's identity was verified by hash (security.identity). */
  verified: boolean;
  status: 'open' | 'ended';
  endReason: EndReason | null;
  tags: string[];
  /** Set by a team member's takeover: the AI stays quiet while it is set. */
  takenOverBy: { userId: string; userName: string } | null;
  /** The published version the conversation runs on; 0 for a preview (the draft). */
  configVersion: number;
  /** A preview's draft as it was when the conversation started (kept on actor rebuilds). */
  previewConfig?: BotConfig;
  /** Template variables filled when the conversation started (instructions, guardrails). */
  prompt: { instructions: string; guardrails: string };
  page: { url: string; title: string };
  /** Older messages condensed by compaction; the transcript keeps them all. */
  summary: { text: string; uptoSeq: number } | null;
  nextSeq: number;
  messageCount: number;
  costUsd: number;
  ip: string;
  createdAt: number;
  updatedAt: number;
  lastMessageAt: number;
  /** When the idle timer ends it (set while no widget has it open). */
  idleEndsAt: number | null;
  endedAt: number | null;
  csat: number | null;
}

export interface MessageRecord extends Doc {
  conversationId: string;
  botId: string;
  seq: number;
  role: MessageRole;
  text: string;
  modality: 'text' | 'voice';
  createdAt: number;
  authorName: string | null;
  /** 'visible' to the visitor, or 'internal' (team notes). */
  visibility: 'visible' | 'internal';
  attachments: AttachmentRef[];
  /** Assistant replies: model, token usage and estimated cost (caps and analytics). */
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
  costUsd?: number;
  citations?: Array<{ title: string; url?: string | null; sourceId: string }>;
}

export interface ToolCallRecord extends Doc {
  conversationId: string;
  botId: string;
  /** The assistant message this call led to (set when the reply is stored). */
  messageId: string;
  round: number;
  name: string;
  arguments: string;
  result: string;
  isError: boolean;
  durationMs: number;
  createdAt: number;
  /** Pictures the tool took (look_at_camera's frame), shown with the call in transcripts when the team may see them. */
  attachments?: AttachmentRef[];
}

export interface AttachmentRecord extends Doc {
  botId: string;
  visitorId: string;
  conversationId: string | null;
  mimeType: string;
  width: number;
  height: number;
  size: number;
  createdAt: number;
  /**
   * A camera frame, with what vision.webcam promised when it was taken: kept after the conversation
   * (persistFrames) and shown to the team (shareWithHumanAgents); description when the brain cannot see.
   */
  camera?: { keep: boolean; shared: boolean; description?: string };
}

export interface FeedbackRecord extends Doc {
  botId: string;
  conversationId: string;
  messageId: string | null;
  kind: 'thumb' | 'csat';
  value: number;
  comment?: string;
  createdAt: number;
}

export interface VisitorRecord extends Doc {
  /** The customer's own user id (verified identities only; absent otherwise, so the sparse unique index skips it). */
  userId?: string;
  name: string | null;
  email: string | null;
  createdAt: number;
  lastSeenAt: number;
}

/** Per bot and UTC day: estimated spend and agent replies, for security.caps. */
export interface UsageDayRecord extends Doc {
  botId: string;
  day: string;
  costUsd: number;
  replies: number;
  /** Seconds of voice audio, both ways (security.caps.dailyVoiceMinutes). */
  voiceSeconds?: number;
}

declare module '../app/records.js' {
  interface Records {
    conversations: Collection<ConversationRecord>;
    messages: Collection<MessageRecord>;
    toolCalls: Collection<ToolCallRecord>;
    attachments: Collection<AttachmentRecord>;
    feedback: Collection<FeedbackRecord>;
    visitors: Collection<VisitorRecord>;
    usage: Collection<UsageDayRecord>;
  }
}

/** The conversations' collections and their indexes (opened once at start-up: src/records-root.ts). */
export const conversationRecords = {
  conversations: {
    name: 'conversations',
    indexes: [
      { fields: [['workspaceId', 1], ['botId', 1]] }, { fields: [['workspaceId', 1], ['visitorId', 1], ['botId', 1]] }, { fields: [['status', 1], ['idleEndsAt', 1]] },
      // The retention sweep reads expired conversations by age (src/retention/job.ts).
      { fields: [['workspaceId', 1], ['lastMessageAt', 1]] },
    ],
  },
  messages: { name: 'messages', indexes: [{ fields: [['conversationId', 1], ['seq', 1]], unique: true }] },
  toolCalls: { name: 'tool_calls', indexes: [{ fields: [['conversationId', 1]] }, { fields: [['workspaceId', 1], ['createdAt', 1]] }] },
  attachments: {
    name: 'attachments',
    indexes: [
      { fields: [['conversationId', 1]] }, { fields: [['visitorId', 1], ['createdAt', 1]] },
      // The camera frames' sweep reads the frames whose time is up (src/retention/camera-frames.ts).
      { fields: [['camera.keep', 1], ['conversationId', 1]] },
    ],
  },
  feedback: { name: 'feedback', indexes: [{ fields: [['conversationId', 1]] }, { fields: [['workspaceId', 1], ['createdAt', 1]] }] },
  visitors: { name: 'visitors', indexes: [{ fields: [['workspaceId', 1], ['userId', 1]], unique: true, sparse: true }, { fields: [['workspaceId', 1], ['email', 1]] }] },
  usage: { name: 'usage_daily', indexes: [{ fields: [['workspaceId', 1], ['botId', 1], ['day', 1]] }] },
} satisfies RecordSpecs<'conversations' | 'messages' | 'toolCalls' | 'attachments' | 'feedback' | 'visitors' | 'usage'>;

/** The message exactly as the spec shapes it (service-api.md, Resources): message.created, REST. */
export function publicMessage(m: MessageRecord) {
  return {
    id: m._id, seq: m.seq, role: m.role, text: m.text, modality: m.modality, createdAt: m.createdAt,
    authorName: m.authorName, visibility: m.visibility, attachments: publicAttachments(m.attachments),
  };
}

/** The spec's attachment shape; camera frames the bot does not share with the team are left out. */
export function publicAttachments(refs: AttachmentRef[]): AttachmentRef[] {
  if (!refs.some((a) => a.camera)) return refs;
  return refs.filter((a) => !a.camera || a.camera.shared).map(({ id, mimeType, width, height }) => ({ id, mimeType, width, height }));
}
export type PublicMessage = ReturnType<typeof publicMessage>;

/** The message in widget frames: the spec's shape plus the reply's sources (behavior.citations). */
export function widgetMessage(m: MessageRecord): WidgetMessage {
  return { ...publicMessage(m), ...(m.citations?.length ? { citations: m.citations } : {}) };
}
export type { WidgetMessage };

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
