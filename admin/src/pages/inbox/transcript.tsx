/**
 * One conversation's messages as the team sees them: who said what, when, with tools, sources, images and ratings.
 * Replies are drawn from their Markdown as the widget draws them for the visitor (widget/src/chat/markdown-render.tsx).
 */
import { Markdown } from '../../../../widget/src/chat/markdown-render.js';
import { RelativeTime } from '../../ui.js';
import type { FullMessage, FullTranscript, TeamPicture, ToolCall } from './types.js';

const WHO: Record<FullMessage['role'], string> = { user: 'Visitor', assistant: 'AI', human_agent: 'Team', system_event: '' };

export function Transcript({ t }: { t: FullTranscript }) {
  if (!t.messages.length) return <p class="muted">No messages yet.</p>;
  const tools = new Map<string, ToolCall[]>();
  for (const c of t.toolCalls) tools.set(c.messageId, [...(tools.get(c.messageId) ?? []), c]);
  const thumbs = new Map(t.feedback.filter((f) => f.kind === 'thumb' && f.messageId).map((f) => [f.messageId!, f]));
  const csat = t.feedback.filter((f) => f.kind === 'csat');
  return (
    <ol class="transcript">
      {t.messages.map((m) => {
        if (m.role === 'system_event') return <li key={m.id} class="msg system_event" data-id={m.id}>{m.text}</li>;
        const internal = m.visibility === 'internal';
        const thumb = thumbs.get(m.id);
        return (
          <li key={m.id} data-id={m.id} class={`msg ${m.role}${internal ? ' internal' : ''}${m.modality === 'voice' ? ' voice' : ''}`}>
            {(tools.get(m.id) ?? []).map((c) => <Tool key={c.id} c={c} />)}
            <small class="msg-meta">
              <b>{m.authorName ?? WHO[m.role]}</b>
              {internal && <span class="badge warn">internal note</span>}
              {m.modality === 'voice' && <span class="badge accent" title="Spoken; this is the transcript">voice</span>}
              <RelativeTime ms={m.createdAt} />
            </small>
            {m.text && (m.role === 'user' ? <p>{m.text}</p> : <Markdown text={m.text} />)}
            {m.attachments?.length ? (
              <div class="attachments">
                {m.attachments.map((a) => (
                  <a key={a.id} href={`/api/v1/attachments/${encodeURIComponent(a.id)}`} target="_blank" rel="noopener">
                    <img src={`/api/v1/attachments/${encodeURIComponent(a.id)}`} width={Math.min(a.width, 240)} height={Math.round(Math.min(a.width, 240) * a.height / Math.max(1, a.width))}
                      alt={`Image the ${m.role === 'user' ? 'visitor' : 'agent'} sent (${a.width}×${a.height})`} loading="lazy" />
                  </a>
                ))}
              </div>
            ) : null}
            {m.citations?.length ? (
              <p class="citations"><span class="muted">Sources:</span> {m.citations.map((c, i) => (
                <span key={c.sourceId + i}>{i > 0 && ', '}{/^https?:\/\//i.test(c.url ?? '') ? <a href={c.url ?? undefined} target="_blank" rel="noopener noreferrer">{c.title || c.url}</a> : c.title}</span>
              ))}</p>
            ) : null}
            {thumb && <small class={`rating ${thumb.value > 0 ? 'up' : 'down'}`}>{thumb.value > 0 ? 'Rated helpful' : 'Rated not helpful'}{thumb.comment ? `: ${thumb.comment}` : ''}</small>}
          </li>
        );
      })}
      {csat.map((f, i) => <li key={`csat-${i}`} class="msg system_event">Visitor rated the conversation {f.value}/5{f.comment ? `: “${f.comment}”` : ''}</li>)}
      <LiveView pictures={(t.attachments ?? []).filter((a) => a.source === 'camera' && !a.messageId && !a.toolCallId)} />
    </ol>
  );
}

function Tool({ c }: { c: ToolCall }) {
  return (
    <>
      <details class={`tool-call${c.isError ? ' failed' : ''}`}>
        <summary><span class="tool-label">Tool</span> {c.name} <span class="muted">· {c.isError ? 'failed' : 'ok'} · {c.durationMs} ms</span></summary>
        <div class="tool-io">
          <div><small class="muted">Arguments</small><pre>{pretty(c.arguments)}</pre></div>
          <div><small class="muted">Result</small><pre>{pretty(c.result)}</pre></div>
        </div>
      </details>
      {c.attachments?.length ? <Pictures list={c.attachments} alt={(a) => `Picture the agent took with the visitor's camera (${a.width}×${a.height})`} /> : null}
    </>
  );
}

/** The camera's live view (continuous mode), shared with the team: the latest pictures, newest last. */
function LiveView({ pictures }: { pictures: TeamPicture[] }) {
  if (!pictures.length) return null;
  const shown = pictures.slice(-6);
  return (
    <li class="msg system_event live-view">
      Camera live view: {pictures.length} picture{pictures.length === 1 ? '' : 's'}{pictures.length > shown.length ? `, the last ${shown.length} shown` : ''}
      <Pictures list={shown} alt={(a) => `The visitor's camera at ${new Date((a as TeamPicture).createdAt).toLocaleTimeString()}${(a as TeamPicture).description ? `: ${(a as TeamPicture).description}` : ''}`} />
    </li>
  );
}

function Pictures({ list, alt }: { list: Array<{ id: string; width: number; height: number }>; alt: (a: { id: string; width: number; height: number }) => string }) {
  return (
    <div class="attachments">
      {list.map((a) => (
        <a key={a.id} href={`/api/v1/attachments/${encodeURIComponent(a.id)}`} target="_blank" rel="noopener">
          <img src={`/api/v1/attachments/${encodeURIComponent(a.id)}`} width={Math.min(a.width, 160)} height={Math.round(Math.min(a.width, 160) * a.height / Math.max(1, a.width))} alt={alt(a)} loading="lazy" />
        </a>
      ))}
    </div>
  );
}

function pretty(s: string): string {
  try { return JSON.stringify(JSON.parse(s), null, 2); } catch { return s; }
}
