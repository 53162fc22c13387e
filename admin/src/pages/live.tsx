/** #/live: the workspace's events as they arrive on the live socket, and this person's presence. */
import { useEffect, useState } from 'preact/hooks';
import { useSession } from '../session.js';
import type { LiveEvent } from '../types.js';

/** One line of text for an event: the fields that say what happened. */
function describe(e: LiveEvent, myId: string): string {
  const d = e.data;
  switch (e.type) {
    case 'message.created': return `${d.message?.role ?? ''}: ${d.message?.text ?? ''}`;
    case 'conversation.ended': return `reason ${d.reason}`;
    case 'handoff.requested': return d.reason ?? d.summary ?? '';
    case 'handoff.accepted': return `by ${d.userName}`;
    case 'lead.captured': return Object.entries(d.fields ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ');
    case 'presence.changed': return `${d.userId === myId ? 'you are' : `${d.userId} is`} ${d.presence}`;
    case 'bot.published': return `version ${d.version}`;
    case 'tool.called': return `${d.name}${d.isError ? ' (failed)' : ''}, ${d.durationMs} ms`;
    case 'feedback.received': return `${d.kind} ${d.value}${d.comment ? `: ${d.comment}` : ''}`;
    default: return '';
  }
}

export function LivePage() {
  const { live, me } = useSession();
  const [, redraw] = useState(0);
  // Streamed text parts would flood the list; the stored message arrives as message.created.
  const shown = live.events.filter((e) => e.type !== 'message.delta' && e.type !== 'hello');
  useEffect(() => live.subscribe(() => redraw((n) => n + 1)), [live]);
  return (
    <section class="live">
      <h1>Live</h1>
      <p class="live-state">
        Connection: <span class={`badge ${live.state}`}>{live.state}</span>{' '}
        Presence: <span class={`badge presence ${live.presence}`}>{live.presence}</span>{' '}
        {live.presence === 'online'
          ? <button type="button" class="secondary" onClick={() => live.setPresence('away')}>Set away</button>
          : <button type="button" class="secondary" onClick={() => live.setPresence('online')}>Set online</button>}
      </p>
      <p class="muted">While this panel is open and you are online, you can be offered conversations handed over to a person.</p>
      {shown.length === 0 ? <p class="muted">No events yet. They appear here as they happen.</p> : (
        <ol class="events">
          {shown.map((e, i) => (
            <li key={`${e.receivedAt}-${i}`} class="event" data-type={e.type}>
              <time>{new Date(e.receivedAt).toLocaleTimeString()}</time> <b>{e.type}</b> <span>{describe(e, me.user.id)}</span>
              {e.data.conversationId && <a href={`#/conversations/${e.data.conversationId}`}> open</a>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export default LivePage;
