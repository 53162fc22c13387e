import type { ChatBrain } from '../bots/bot-source.js';
import type { MessageRecord } from '../records/conversations.js';

/** About four characters a token, plus a flat amount per image: enough to decide when to compact. */
export function estimateTokens(messages: Pick<MessageRecord, 'text' | 'attachments'>[], system = ''): number {
  let chars = system.length;
  let images = 0;
  for (const m of messages) { chars += m.text.length + 8; images += m.attachments?.length ?? 0; }
  return Math.ceil(chars / 4) + images * 800;
}

/**
 * Which messages to condense: everything but the most recent ones that fit in half the budget (at least the
 * last message stays verbatim). Returns null when nothing would be condensed.
 */
export function splitForCompaction(messages: MessageRecord[], compactAtTokens: number): { older: MessageRecord[]; recent: MessageRecord[] } | null {
  let budget = Math.floor(compactAtTokens / 2);
  let i = messages.length;
  while (i > 0) {
    const cost = estimateTokens([messages[i - 1]]);
    if (i < messages.length && cost > budget) break;
    budget -= cost;
    i--;
  }
  if (i === 0) return null;
  return { older: messages.slice(0, i), recent: messages.slice(i) };
}

/**
 * The share of brain.compactAtTokens past which the conversation actor condenses the history in the background,
 * after a reply is stored, so the turn that crosses the limit finds the summary ready instead of waiting for it.
 */
export const COMPACT_AHEAD_SHARE = 0.8;

/** The messages to condense ahead of need (past COMPACT_AHEAD_SHARE of the limit), or null when none are due. */
export function compactionAhead(history: MessageRecord[], compactAtTokens: number): MessageRecord[] | null {
  const visible = history.filter((m) => m.visibility === 'visible');
  if (estimateTokens(visible) <= compactAtTokens * COMPACT_AHEAD_SHARE) return null;
  return splitForCompaction(visible, compactAtTokens)?.older ?? null;
}

const SPEAKER: Record<string, string> = { user: 'Visitor', assistant: 'Assistant', human_agent: 'Team member', system_event: 'System' };

/** Asks the brain for a summary of the older messages (folding in an earlier summary). */
export async function summarize(brain: ChatBrain, previous: string | null, older: MessageRecord[], signal: AbortSignal): Promise<{ text: string; usage: { inputTokens: number; outputTokens: number } }> {
  const transcript = older.map((m) => `${SPEAKER[m.role] ?? m.role}: ${m.text}${m.attachments.length ? ` [${m.attachments.length} image(s)]` : ''}`).join('\n');
  const input = `${previous ? `Summary so far:\n${previous}\n\n` : ''}Conversation to add:\n${transcript}`;
  let text = '';
  const usage = { inputTokens: 0, outputTokens: 0 };
  await brain.adapter.chat!({
    model: brain.model,
    system: 'You condense chat transcripts. Write a compact summary of the conversation so far: who the visitor is, what they asked, what was answered or promised, open questions, and any facts (names, numbers, order ids) needed later. Plain text, no preamble.',
    messages: [{ role: 'user', content: input }],
    maxOutputTokens: 1024,
  }, (e) => {
    if (e.type === 'text') text += e.delta;
    else if (e.type === 'usage') { usage.inputTokens += e.inputTokens; usage.outputTokens += e.outputTokens; }
  }, signal);
  return { text: text.trim(), usage };
}
