/** Markdown transcript for GET /conversations/{id}/export?format=md. */
const SPEAKER: Record<string, string> = { user: 'Visitor', assistant: 'Agent', human_agent: 'Team', system_event: 'System' };

interface TranscriptLike {
  id: string; botId: string; visitorId: string; status: string; endReason: string | null; tags: string[]; createdAt: number;
  messages: Array<{ id: string; seq: number; role: string; text: string; createdAt: number; authorName: string | null; visibility: string; attachments: Array<{ id: string }> }>;
  toolCalls: Array<{ messageId: string; name: string; arguments: string; isError: boolean; durationMs: number; attachments?: Array<{ id: string }> }>;
  /** Every picture the team may see; those on neither a message nor a tool call were a camera live view. */
  attachments?: Array<{ id: string; createdAt: number; messageId: string | null; toolCallId: string | null }>;
}

/**
 * What visitors and models wrote goes in a fenced block, longer than any run of backticks or tildes in it: Markdown
 * shows it as written, so a message cannot forge a "**Team**" line, a link or raw HTML in the export.
 */
function fenced(text: string): string[] {
  const longest = Math.max(0, ...(text.match(/`+|~+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}text`, text, fence];
}

/** Names and tags the team set, on one line: Markdown and HTML punctuation shown as itself. */
const escapeInline = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');

export function transcriptMarkdown(t: TranscriptLike): string {
  const lines = [
    `# Conversation ${t.id}`, '',
    `- Bot: ${t.botId}`, `- Visitor: ${t.visitorId}`, `- Started: ${new Date(t.createdAt).toISOString()}`,
    `- Status: ${t.status}${t.endReason ? ` (${t.endReason})` : ''}`, ...(t.tags.length ? [`- Tags: ${t.tags.map(escapeInline).join(', ')}`] : []), '',
  ];
  for (const m of t.messages) {
    const who = m.role === 'human_agent' && m.authorName ? `${SPEAKER[m.role]} (${escapeInline(m.authorName)})` : SPEAKER[m.role] ?? m.role;
    const note = m.visibility === 'internal' ? ' (internal note)' : '';
    lines.push(`**${who}**${note} · ${new Date(m.createdAt).toISOString()}`, '');
    for (const call of t.toolCalls.filter((c) => c.messageId === m.id)) {
      lines.push(`> tool ${escapeInline(call.name)} ${call.isError ? 'failed' : 'ok'} in ${call.durationMs} ms`);
      for (const a of call.attachments ?? []) lines.push(`> ![camera](/api/v1/attachments/${a.id})`);
    }
    if (m.text) lines.push(...fenced(m.text));
    for (const a of m.attachments) lines.push(`![image](/api/v1/attachments/${a.id})`);
    lines.push('');
  }
  const live = (t.attachments ?? []).filter((a) => !a.messageId && !a.toolCallId);
  if (live.length) {
    lines.push('**Camera live view**', '');
    for (const a of live) lines.push(`![camera ${new Date(a.createdAt).toISOString()}](/api/v1/attachments/${a.id})`);
    lines.push('');
  }
  return lines.join('\n');
}
