/**
 * Reply to the visitor or add an internal note. Typing sends the visitor a typing indication (at most every
 * 3 s, and "stopped" after 5 s of quiet or on send). Enter sends, Shift+Enter starts a new line.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorText, useAction } from '../../ui.js';
import type { Conv, FullMessage } from './types.js';

const TYPING_EVERY_MS = 3_000;
const TYPING_QUIET_MS = 5_000;

export function Composer({ id, conv, mine, onSent, onTookOver }: { id: string; conv: Conv; mine: boolean; onSent: (m: FullMessage) => void; onTookOver: () => void }) {
  const path = `/conversations/${encodeURIComponent(id)}`;
  const open = conv.status === 'open';
  const someoneElse = !!conv.takenOverBy && !mine;
  const canReply = open && !someoneElse;
  const [mode, setMode] = useState<'reply' | 'note'>(canReply ? 'reply' : 'note');
  const [text, setText] = useState('');
  const act = useAction();
  const typing = useRef({ sentAt: 0, quiet: undefined as ReturnType<typeof setTimeout> | undefined });
  useEffect(() => { if (!canReply) setMode('note'); }, [canReply]);
  useEffect(() => () => clearTimeout(typing.current.quiet), []);

  const sendTyping = (active: boolean) => { api('POST', `${path}/typing`, { active }).catch(() => {}); };
  const onType = (v: string) => {
    setText(v);
    if (mode !== 'reply' || !mine) return;
    const now = Date.now();
    if (now - typing.current.sentAt > TYPING_EVERY_MS) { typing.current.sentAt = now; sendTyping(true); }
    clearTimeout(typing.current.quiet);
    typing.current.quiet = setTimeout(() => { typing.current.sentAt = 0; sendTyping(false); }, TYPING_QUIET_MS);
  };
  const send = () => {
    if (!text.trim()) return;
    act.run(async () => {
      const internal = mode === 'note';
      const m = await api<FullMessage>('POST', `${path}/messages`, { text, internal });
      if (typing.current.sentAt) { clearTimeout(typing.current.quiet); typing.current.sentAt = 0; sendTyping(false); }
      setText('');
      onSent(m);
      if (!internal && !mine) onTookOver();
    });
  };

  return (
    <form class={`composer ${mode}`} name="reply" onSubmit={(e) => { e.preventDefault(); send(); }}>
      <div class="composer-tabs" role="radiogroup" aria-label="Write">
        <label class={mode === 'reply' ? 'on' : ''}><input type="radio" name="mode" value="reply" checked={mode === 'reply'} disabled={!canReply} onChange={() => setMode('reply')} /> Reply</label>
        <label class={mode === 'note' ? 'on' : ''}><input type="radio" name="mode" value="note" checked={mode === 'note'} onChange={() => setMode('note')} /> Internal note</label>
        <span class="composer-hint muted">
          {!open ? 'The conversation has ended: notes only.' : someoneElse ? `${conv.takenOverBy!.userName} is answering: notes only.`
            : mode === 'note' ? 'Only your team sees notes.' : mine ? 'The visitor sees this.' : 'Sending takes the conversation over; the AI goes quiet.'}
        </span>
      </div>
      <label class="visually-hidden" for={`composer-${id}`}>{mode === 'note' ? 'Internal note' : 'Reply to the visitor'}</label>
      <textarea id={`composer-${id}`} name="text" rows={3} value={text} maxLength={20000}
        placeholder={mode === 'note' ? 'A note only your team sees…' : 'Write a reply…  (Enter sends, Shift+Enter for a new line)'}
        onInput={(e) => onType(e.currentTarget.value)}
        onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); } }} />
      <div class="composer-foot">
        <ErrorText error={act.error} />
        <button type="submit" disabled={act.busy || !text.trim()}>{mode === 'note' ? 'Add note' : 'Send'}</button>
      </div>
    </form>
  );
}
