/** The conversation shapes the inbox reads (GET /conversations and /conversations/{id}; the OpenAPI document has them). */
import type { ConversationSummary, Message } from '../../types.js';

export interface OpenHandoff { id: string; state: 'requested' | 'accepted'; reason: string | null; summary: string | null; requestedAt: number }

export interface Conv extends ConversationSummary {
  verified: boolean; costUsd: number; csat: number | null; updatedAt: number; endedAt: number | null; handoff: OpenHandoff | null;
  /** Who the visitor is when known (a verified identity, or a lead they left). */
  visitor?: { name: string | null; email: string | null };
  /** In lists only: the last message the visitor could see (text cut short). */
  lastMessage?: { role: FullMessage['role']; text: string; createdAt: number } | null;
}

export interface Attachment { id: string; mimeType: string; width: number; height: number }
export interface Citation { title: string; url?: string | null; sourceId: string }
export interface FullMessage extends Message { attachments?: Attachment[]; citations?: Citation[] }
export interface ToolCall { id: string; messageId: string; round: number; name: string; arguments: string; result: string; isError: boolean; durationMs: number; createdAt: number; attachments?: Array<{ id: string; width: number; height: number }> }
/** A picture the team may see (GET /conversations/{id} `attachments`): on a message, on a tool call (look_at_camera), or neither (the camera's live view). */
export interface TeamPicture { id: string; width: number; height: number; createdAt: number; source: 'camera' | 'upload'; messageId: string | null; toolCallId: string | null; description?: string }
export interface Feedback { kind: 'thumb' | 'csat'; messageId: string | null; value: number; comment?: string; createdAt: number }

export interface FullTranscript extends Conv { summary: string | null; messages: FullMessage[]; toolCalls: ToolCall[]; feedback: Feedback[]; attachments?: TeamPicture[] }
