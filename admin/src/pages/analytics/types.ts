/** Shapes of the analytics answers. */
export interface Totals {
  conversations: number; conversationsEnded: number;
  messages: { visitor: number; agent: number; team: number; system: number };
  leads: number; leadsInConversations: number; handoffs: { requested: number; accepted: number; resolved: number; takenOver: number };
  feedback: { thumbsUp: number; thumbsDown: number; csatCount: number; csatAverage: number | null };
  tools: { calls: number; errors: number }; tokens: { input: number; output: number }; costUsd: number;
}
interface Scope { from: string; to: string; botId: string | null }
export type Summary = Scope & Totals;
export interface Timeseries extends Scope { items: Array<{ day: string } & Totals> }
export interface ToolUse extends Scope { items: Array<{ name: string; calls: number; errors: number; errorRate: number; avgDurationMs: number; p95DurationMs: number | null }> }
interface ModelUse { replies: number; inputTokens: number; outputTokens: number; costUsd: number }
export interface Usage extends Scope { items: Array<{ model: string } & ModelUse>; total: ModelUse; note: string }
