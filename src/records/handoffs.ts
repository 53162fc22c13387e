/** Stored handoffs: a conversation handed to the team, its wait and who took it (src/team/handoff.ts writes them). */
import type { RecordSpecs } from '../app/records.js';
import type { Collection, Doc } from '../store/types.js';

export type HandoffState = 'requested' | 'accepted' | 'resolved' | 'unanswered';

export interface HandoffRecord extends Doc {
  botId: string;
  conversationId: string;
  state: HandoffState;
  /** 'agent' (the handoff_to_human tool) or 'visitor' (the chat menu). */
  source: 'agent' | 'visitor';
  reason: string | null;
  summary: string | null;
  requestedAt: number;
  /** When the wait for acceptance ends (behavior.handoff.acceptTimeoutSec). */
  deadlineAt: number;
  acceptedBy: { userId: string; userName: string } | null;
  acceptedAt: number | null;
  resolvedAt: number | null;
  resolvedBy: string | null;
  /** Why nobody took it: 'timeout', 'nobody_available', 'closed_hours', or 'ended' (the conversation ended first). */
  unansweredReason: string | null;
}


declare module '../app/records.js' {
  interface Records {
    handoffs: Collection<HandoffRecord>;
  }
}
/** Opened once at start-up (src/records-root.ts). */
export const handoffRecords = {
  handoffs: { name: 'handoffs', indexes: [
    { fields: [['workspaceId', 1], ['conversationId', 1], ['state', 1]] },
    { fields: [['workspaceId', 1], ['state', 1], ['deadlineAt', 1]] },
    { fields: [['workspaceId', 1], ['requestedAt', 1]] },
    // Start-up: waiting handoffs of every workspace (their timers are re-armed).
    { fields: [['state', 1], ['_id', 1]] },
  ] },
} satisfies RecordSpecs<'handoffs'>;
