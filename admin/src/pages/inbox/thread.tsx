/**
 * The inbox's middle pane: the open conversation's transcript (tool calls, citations, images, voice turns,
 * internal notes; the AI's reply streams in as it is written), its main actions, and the composer.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import { confirmDialog, ErrorText, Loading, RelativeTime, toast, useAction } from '../../ui.js';
import { Markdown } from '../../../../widget/src/chat/markdown-render.js';
import { Composer } from './composer.js';
import { visitorName, useModel, type Pane } from './index.js';
import type { InboxModel } from './model.js';
import { Transcript } from './transcript.js';
import type { FullMessage, FullTranscript } from './types.js';

export function Thread({ id, model, botName, onPane }: { id: string; model: InboxModel; botName: (id: string) => string; onPane: (p: Pane) => void }) {
  const { live, me, atLeast } = useSession();
  useModel(model);
  const path = `/conversations/${encodeURIComponent(id)}`;
  const [t, setT] = useState<FullTranscript | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [streaming, setStreaming] = useState<{ id: string; text: string } | null>(null);
  const refetch = useRef<ReturnType<typeof setTimeout>>();
  const endRef = useRef<HTMLDivElement>(null);
  const wasDown = useRef(false);

  const load = () => api<FullTranscript>('GET', path).then((x) => { setT(x); setError(null); model.put(x); }, (e) => setError(e.message));
  useEffect(() => { load(); return () => clearTimeout(refetch.current); }, [id]);
  useEffect(() => live.subscribe((e) => {
    // A reconnect may have missed messages: read the transcript again.
    if (!e && live.state === 'open' && wasDown.current) load();
    if (!e) { wasDown.current = live.state !== 'open'; return; }
    if (!('conversationId' in e.data) || e.data.conversationId !== id) return;
    if (e.type === 'message.delta') {
      const d = e.data;
      setStreaming((s) => (s && s.id === d.messageId ? { id: s.id, text: s.text + d.delta } : { id: d.messageId, text: d.delta }));
    } else if (e.type === 'message.created') {
      const m = e.data.message as FullMessage;
      setT((old) => (old && !old.messages.some((x) => x.id === m.id) ? { ...old, messages: [...old.messages, m] } : old));
      setStreaming(null);
      // Tool calls and citations are not in the event: read the transcript again once the reply is stored.
      if (m.role === 'assistant') { clearTimeout(refetch.current); refetch.current = setTimeout(load, 250); }
    }
  }), [id]);
  const count = t?.messages.length ?? 0;
  useEffect(() => { endRef.current?.scrollIntoView({ block: 'end' }); }, [count, streaming?.text.length, t === null]);

  const conv = model.convs.get(id) ?? t;
  const act = useAction();
  if (!t || !conv) {
    return (
      <section class="inbox-thread" aria-label="Conversation">
        <div class="thread-head"><a class="button secondary small back-pane" href="#/inbox">← Back</a></div>
        <div class="thread-body"><Loading error={error} text="Loading the conversation…" /></div>
      </section>
    );
  }
  const open = conv.status === 'open';
  const mine = conv.takenOverBy?.userId === me.user.id;
  const run = (what: string, done: string) => act.run(async () => { model.put(await api('POST', `${path}/${what}`, {})); toast(done); load(); });
  const close = async () => {
    if (!(await confirmDialog({ title: 'Close this conversation?', message: 'The visitor can still write again; that starts a new conversation. The transcript is kept.', confirmText: 'Close conversation' }))) return;
    await run('close', 'Conversation closed');
  };

  return (
    <section class="inbox-thread" aria-label={`Conversation with ${visitorName(conv)}`}>
      <div class="thread-head">
        <a class="button secondary small back-pane" href="#/inbox" aria-label="Back to the list">←</a>
        <div class="thread-title">
          <h2>{visitorName(conv)}</h2>
          <p class="muted">
            {botName(conv.botId)} · started <RelativeTime ms={conv.createdAt} />
            {' · '}{!open ? <span class="badge">ended{conv.endReason ? ` (${conv.endReason.replace(/_/g, ' ')})` : ''}</span>
              : conv.takenOverBy ? <span class="badge accent taken-over">{mine ? 'You are answering' : `${conv.takenOverBy.userName} is answering`}</span>
                : conv.handoff?.state === 'requested' ? <span class="badge warn">waiting for a person</span> : <span class="badge good taken-over">the AI is answering</span>}
          </p>
        </div>
        <div class="thread-actions">
          {atLeast('agent') && open && !conv.takenOverBy && <button type="button" disabled={act.busy} onClick={() => run('takeover', 'You took the conversation over; the AI is quiet')}>Take over</button>}
          {atLeast('agent') && open && conv.takenOverBy && (mine || atLeast('admin')) && (
            <button type="button" class="secondary" disabled={act.busy} onClick={() => run('release', 'Handed back to the AI')}>Hand back to the AI</button>
          )}
          {atLeast('agent') && open && <button type="button" class="secondary" disabled={act.busy} onClick={close}>Close</button>}
          <button type="button" class="secondary details-toggle" onClick={() => onPane('details')}>Details</button>
        </div>
      </div>
      <ErrorText error={act.error} />
      <div class="thread-body" tabIndex={0} aria-label="Transcript">
        {t.summary && <p class="thread-summary"><strong>Earlier in this conversation:</strong> {t.summary}</p>}
        <Transcript t={t} />
        {streaming && <div class="msg assistant streaming" aria-live="off"><small class="muted">AI · writing…</small><Markdown text={streaming.text} streaming /></div>}
        {open && model.aiStatus.has(id) && !streaming && <p class="ai-status muted" role="status">AI: {model.aiStatus.get(id)}…</p>}
        {model.typing.has(id) && <p class="visitor-typing muted" role="status"><span class="dots" aria-hidden="true"><i /><i /><i /></span> {visitorName(conv)} is typing</p>}
        <div ref={endRef} />
      </div>
      {atLeast('agent') && <Composer id={id} conv={conv} mine={mine} onSent={(m) => { setT((old) => (old && !old.messages.some((x) => x.id === m.id) ? { ...old, messages: [...old.messages, m] } : old)); model.markSeen(id); }} onTookOver={load} />}
    </section>
  );
}
