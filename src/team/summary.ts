/**
 * The handoff summary: a deterministic digest of the conversation so far (no model call, so it costs nothing,
 * works with no brain connected and never leaks into usage caps). The last visible lines, oldest first.
 */
import type { MessageRecord } from '../records/conversations.js';

const LINES = 8;
const LINE_CHARS = 200;
const WHO: Record<MessageRecord['role'], string> = { user: 'Visitor', assistant: 'Agent', human_agent: 'Team', system_event: 'System' };

export function summarize(messages: Pick<MessageRecord, 'role' | 'text' | 'visibility' | 'authorName'>[]): string | null {
  const lines = messages
    .filter((m) => m.visibility === 'visible' && m.role !== 'system_event' && m.text.trim())
    .slice(-LINES)
    .map((m) => {
      const text = m.text.replace(/\s+/g, ' ').trim();
      const who = m.role === 'human_agent' && m.authorName ? m.authorName : WHO[m.role];
      return `${who}: ${text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS - 1)}…` : text}`;
    });
  return lines.length ? lines.join('\n') : null;
}
