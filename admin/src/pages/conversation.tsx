/**
 * #/conversations/<id>: the transcript, kept current from the live socket. Agents and up can take the
 * conversation over (the AI goes quiet), reply as themselves or add an internal note, and hand it back.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import type { Transcript } from '../types.js';
import { ErrorText, Form, Loading, useAction, useLoad, when } from '../ui.js';

const WHO: Record<string, string> = { user: 'Visitor', assistant: 'Agent (AI)', human_agent: 'Team', system_event: 'Event' };

export function ConversationPage({ id }: { id: string }) {
  const { me, live, atLeast } = useSession();
  const path = `/conversations/${encodeURIComponent(id)}`;
  const conv = useLoad(() => api<Transcript>('GET', path), [id]);
  const act = useAction();
  useEffect(() => live.subscribe((e) => { if (e && e.data.conversationId === id && e.type !== 'message.delta') conv.reload(); }), [id]);

  if (!conv.data) return <section><p><a href="#/conversations">← Conversations</a></p><Loading error={conv.error} /></section>;
  const c = conv.data;
  const mine = c.takenOverBy?.userId === me.user.id;
  const action = (what: 'takeover' | 'release') => act.run(async () => { await api('POST', `${path}/${what}`, {}); conv.reload(); });

  return (
    <section class="conversation">
      <p><a href="#/conversations">← Conversations</a></p>
      <h1>Conversation</h1>
      <dl class="facts">
        <dt>Status</dt><dd><span class={`badge ${c.status}`}>{c.status}</span>{c.endReason && ` (${c.endReason})`}</dd>
        <dt>Bot</dt><dd><a href={`#/bots/${c.botId}`}><code>{c.botId}</code></a></dd>
        <dt>Page</dt><dd>{c.page.url || '—'}</dd>
        <dt>Taken over by</dt><dd class="taken-over">{c.takenOverBy ? c.takenOverBy.userName : 'nobody (the AI answers)'}</dd>
      </dl>
      {c.summary && <p class="summary">{c.summary}</p>}
      <ol class="transcript">
        {c.messages.map((m) => (
          <li key={m.id} class={`msg ${m.role} ${m.visibility === 'internal' ? 'internal' : ''}`}>
            <small class="muted">{m.authorName ?? WHO[m.role]}{m.visibility === 'internal' ? ' · internal note' : ''}{m.modality === 'voice' ? ' · voice' : ''} · {when(m.createdAt)}</small>
            <p>{m.text}</p>
          </li>
        ))}
      </ol>
      {atLeast('agent') && c.status === 'open' && (
        <div class="actions">
          {!c.takenOverBy && <button type="button" disabled={act.busy} onClick={() => action('takeover')}>Take over</button>}
          {c.takenOverBy && <button type="button" class="secondary" disabled={act.busy} onClick={() => action('release')}>Hand back to the AI</button>}
        </div>
      )}
      <ErrorText error={act.error} />
      {atLeast('agent') && c.status === 'open' && <Reply path={path} takenOver={mine} onSent={conv.reload} />}
    </section>
  );
}

function Reply({ path, takenOver, onSent }: { path: string; takenOver: boolean; onSent: () => void }) {
  const [text, setText] = useState('');
  const [internal, setInternal] = useState(!takenOver);
  const act = useAction();
  useEffect(() => { setInternal(!takenOver); }, [takenOver]);
  const submit = () => act.run(async () => { await api('POST', `${path}/messages`, { text, internal }); setText(''); onSent(); });
  return (
    <Form onSubmit={submit} class="card reply" name="reply">
      <textarea name="text" rows={3} value={text} placeholder={internal ? 'A note only the team sees' : 'Your reply to the visitor'}
        onInput={(e) => setText(e.currentTarget.value)} required />
      <label class="check"><input type="checkbox" name="internal" checked={internal} onChange={(e) => setInternal(e.currentTarget.checked)} /> Internal note</label>
      <button type="submit" disabled={act.busy}>{internal ? 'Add note' : 'Send reply'}</button>
      <ErrorText error={act.error} />
    </Form>
  );
}
