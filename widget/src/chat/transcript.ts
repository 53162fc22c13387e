/** Download transcript (behavior.transcriptDownload): built in the browser from what the window shows, as Markdown. */
import type { Msg } from './session.js';
import type { T } from './strings.js';

export function transcriptMarkdown(messages: Msg[], agentName: string, t: T): string {
  const lines = [`# ${t('transcript.title', { name: agentName })}`, '', `_${new Date().toLocaleString()}_`, ''];
  for (const m of messages) {
    if (m.role === 'error' || m.failed) continue;
    const who = m.role === 'user' ? t('transcript.you') : m.role === 'system_event' ? '' : m.authorName || agentName;
    const when = new Date(m.createdAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    lines.push(who ? `**${who}** (${when}):` : `_(${when})_`, '', m.text + (m.attachmentCount ? `\n\n[${t('message.images', { count: m.attachmentCount })}]` : ''), '');
    for (const c of m.citations ?? []) lines.push(`- ${c.url ? `[${c.title}](${c.url})` : c.title}`);
    if (m.citations?.length) lines.push('');
  }
  return lines.join('\n');
}

export function downloadText(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 5000);
}
