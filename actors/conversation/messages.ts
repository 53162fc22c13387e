import type { ChatErrorCode } from '../../src/conversation/protocol.js';
import type { EndReason, PublicMessage } from '../../src/records/conversations.js';
import type { ReplyResult } from '../../src/conversation/agent-loop.js';

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
  /** The conversation is being deleted (retention, erasure): its running reply is dropped; the actor is stopped next. */
  | { type: 'forget' }
  // From the voice session actor (actors/voice/).
  | { type: 'voiceAttach'; port: VoicePort }
  | { type: 'voiceDetach'; sessionId: string }
  | { type: 'voiceTurn'; role: 'user' | 'assistant'; text: string; id?: string; model?: string; usage?: { inputTokens: number; outputTokens: number }; costUsd?: number }
  | { type: 'voiceUsage'; costUsd: number; voiceSeconds: number }
  // Internal.
  | { type: 'replyDone'; messageId: string; responseId: string; result?: ReplyResult; error?: unknown; aborted: boolean }
  /** A summary made ahead of need (summary.ts): spent is set whenever the model answered. */
  | {
    type: 'summaryDone'; id: string; aborted: boolean; error?: unknown;
    summary?: { text: string; uptoSeq: number };
    spent?: { usage: { inputTokens: number; outputTokens: number }; costUsd: number };
  }
  | { type: 'idleCheck' };

/**
 * What the conversation may ask of the voice session attached to it (handed over by voiceAttach), so the
 * conversation never imports the voice actor: typed text goes to the engine, a takeover or the end stops it.
 */
export interface VoicePort {
  readonly sessionId: string;
  sendText(text: string): void;
  end(reason: 'team_takeover' | 'conversation_ended' | 'visitor' | 'cap_reached'): void;
}

export type ChatRefusal = { ok: false; code: ChatErrorCode; message: string; retryAfterMs?: number };
export type VisitorMessageReply = { ok: true; message: PublicMessage } | ChatRefusal | { ok: false; code: 'ended'; message: string };

export interface ConversationReplies {
  visitorMessage: VisitorMessageReply;
  feedback: { ok: true } | ChatRefusal;
  csat: { ok: true } | ChatRefusal;
  teamMessage: PublicMessage;
  systemLine: PublicMessage;
  close: { ended: boolean };
  /** changed: false when someone (takenOverBy) had it already. */
  takeover: { ok: true; changed: boolean; takenOverBy: { userId: string; userName: string } };
  release: { ok: true };
  voiceAttach: { ok: true; messageCount: number } | ChatRefusal;
  voiceTurn: PublicMessage | null;
}
