import type { ChatErrorCode } from '../../src/chat/protocol.js';
import type { EndReason, PublicMessage } from '../../src/chat/records.js';
import type { ReplyResult } from '../../src/chat/agent-loop.js';

/** Everything a conversation actor handles: one `{ type }` union, one exhaustive switch (actor.ts). */
export type ConversationMsg =
  // From the widget socket.
  | { type: 'visitorMessage'; visitorId: string; text: string; attachments: string[]; clientId?: string }
  | { type: 'visitorTyping'; active: boolean }
  | { type: 'feedback'; visitorId: string; messageId: string; value: 1 | -1 }
  | { type: 'csat'; visitorId: string; value: number; comment?: string }
  /** A widget opened (true) or the last one closed (false) this conversation. */
  | { type: 'presence'; open: boolean }
  // From the team (REST, handoff). The AI stays quiet while takenOverBy is set.
  | { type: 'close'; reason: EndReason }
  | { type: 'takeover'; userId: string; userName: string }
  | { type: 'release'; by: string }
  | { type: 'teamMessage'; userId: string; authorName: string; text: string; internal: boolean }
  | { type: 'teamTyping'; active: boolean; authorName: string }
  /** A system line shown to the visitor and stored (role system_event), e.g. "Nobody is available". */
  | { type: 'systemLine'; text: string }
  /** Ask the agent to answer now (after a release, or a handoff that nobody accepted). */
  | { type: 'agentReply' }
  // Internal.
  | { type: 'replyDone'; messageId: string; responseId: string; result?: ReplyResult; error?: unknown; aborted: boolean }
  | { type: 'idleCheck' };

export type ChatRefusal = { ok: false; code: ChatErrorCode; message: string; retryAfterMs?: number };
export type VisitorMessageReply = { ok: true; message: PublicMessage } | ChatRefusal | { ok: false; code: 'ended'; message: string };

export interface ConversationReplies {
  visitorMessage: VisitorMessageReply;
  feedback: { ok: true } | ChatRefusal;
  csat: { ok: true } | ChatRefusal;
  teamMessage: PublicMessage;
  systemLine: PublicMessage;
  close: { ended: boolean };
  takeover: { ok: true };
  release: { ok: true };
}
