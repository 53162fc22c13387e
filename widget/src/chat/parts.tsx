/** Pieces of the chat window: one message, the composer, and the cards the server can ask for. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Msg, State } from './session.js';
import { STRINGS, type StringKey, type T } from './strings.js';
import { Markdown } from './markdown.js';

// Icons are inline SVG: emoji depend on the visitor's fonts (and are missing on many Linux systems).
const THUMB = <svg viewBox="0 0 24 24" width="14" height="14" fill="currentColor"><path d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3a1.5 1.5 0 0 0-.5-1L13.1 1 6.6 7.6A2 2 0 0 0 6 9v10a2 2 0 0 0 2 2h9a2 2 0 0 0 1.8-1.2l3-7.1.2-.7v-2z" /></svg>;
const CLIP = <svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="2"><path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9" /></svg>;

/** The mark on a spoken message (the voice bar's microphone, small). */
const MIC_SMALL = <svg viewBox="0 0 24 24" width="12" height="12" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M12 3a3 3 0 0 1 3 3v6a3 3 0 0 1-6 0V6a3 3 0 0 1 3-3zM5 11a7 7 0 0 0 14 0M12 18v3" /></svg>;
const SEND = <svg viewBox="0 0 24 24" width="18" height="18" fill="currentColor"><path d="M3 20.5l18-8.5L3 3.5 3 10l12 2-12 2z" /></svg>;

const clock = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });

/** Under a reply cut off before it was finished: says so, with one tap to ask the question again. */
export function Interrupted({ m, t, onAskAgain }: { m: Msg; t: T; onAskAgain(id: string): void }) {
  if (!m.interrupted) return null;
  return (
    <div class={m.text ? 'int' : 'int only'} role="note">{t('message.interrupted')}
      {m.interrupted === 'yes' ? <button class="btn alt" onClick={() => onAskAgain(m.id)}>{t('message.askAgain')}</button> : null}
    </div>
  );
}

export function Message(p: { m: Msg; t: T; agent: string; thumbs: boolean; citations: boolean; time?: boolean; onThumb(id: string, v: 1 | -1): void; onAskAgain(id: string): void }) {
  const { m, t } = p;
  if (m.role === 'system_event' || m.role === 'error') return <div class={`line ${m.role === 'error' ? 'error' : ''}`} role={m.role === 'error' ? 'alert' : undefined}>{m.text}</div>;
  const cls = `m ${m.role}${m.pending ? ' pending' : ''}${m.failed ? ' failed' : ''}`;
  // Thumbs and sources need the stored reply: not under one cut off before it was stored.
  const reply = m.role === 'assistant' && !m.streaming && !m.interrupted;
  return (
    <div class={cls} data-id={m.id} data-role={m.role}>
      {m.role === 'human_agent' && m.authorName ? <span class="who">{m.authorName}</span>
        : <span class="sr">{m.role === 'user' ? t('transcript.you') : m.role === 'assistant' ? p.agent : t('status.someone')}: </span>}
      {m.modality === 'voice' ? <span class="vk" role="img" aria-label={t('voice.spoken')} title={t('voice.spoken')}>{MIC_SMALL}</span> : null}
      {m.role === 'user' ? <div class="ut" dir="auto">{m.text}</div> : <Markdown text={m.text} streaming={m.streaming} />}
      {m.images?.map((src) => <img src={src} alt="" />)}
      {!m.images?.length && m.attachmentCount ? <span class="who">{t('message.images', { count: m.attachmentCount })}</span> : null}
      {m.failed ? <span class="who">{t('message.failed')}</span> : null}
      <Interrupted m={m} t={t} onAskAgain={p.onAskAgain} />
      {p.time && !m.streaming ? <time class="ts" dir="auto" dateTime={new Date(m.createdAt).toISOString()}>{clock.format(m.createdAt)}</time> : null}
      {p.citations && reply && m.citations?.length ? (
        <div class="cit">{t('citations.label')}
          <ul>{m.citations.map((c) => <li>{c.url ? <a href={c.url} target="_blank" rel="noopener noreferrer">{c.title}</a> : c.title}</li>)}</ul>
        </div>
      ) : null}
      {p.thumbs && reply ? (
        <div class="fb">
          <button class={m.feedback === 1 ? 'on' : ''} aria-pressed={m.feedback === 1} aria-label={t('feedback.up')} title={t('feedback.up')} onClick={() => p.onThumb(m.id, 1)}>{THUMB}</button>
          <button class={m.feedback === -1 ? 'on' : ''} aria-pressed={m.feedback === -1} aria-label={t('feedback.down')} title={t('feedback.down')} onClick={() => p.onThumb(m.id, -1)}><span class="dn">{THUMB}</span></button>
        </div>
      ) : null}
    </div>
  );
}

export interface Pending { key: string; url: string; id: string | null }

export function Composer(p: {
  t: T; placeholder: string; max: number; uploads: boolean; files: Pending[]; disabled?: boolean;
  /** Text to put back into an empty box (a refused message). */
  refill?: { text: string; key: string };
  /** The microphone button, when voice can start. */
  mic?: ComponentChildren;
  onSend(text: string): boolean; onPick(files: File[]): void; onRemove(key: string): void; onTyping(active: boolean): void;
}) {
  const [text, setText] = useState('');
  const file = useRef<HTMLInputElement>(null);
  const typing = useRef(0);
  const submit = () => {
    if ((!text.trim() && !p.files.length) || p.files.some((f) => !f.id)) return;
    if (p.onSend(text.trim())) { setText(''); clearTimeout(typing.current); typing.current = 0; p.onTyping(false); }
  };
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => { if (p.refill && !text) setText(p.refill.text); }, [p.refill?.key]);
  // The box grows with its text up to its max-height (then scrolls), and shrinks back when sent.
  // Empty: back to the CSS height without measuring (a measurement forces a layout, slow on the first open).
  useEffect(() => { const el = area.current; if (el) { el.style.height = text ? 'auto' : ''; if (text) el.style.height = `${el.scrollHeight + 2}px`; } }, [text]);
  const input = (v: string) => {
    setText(v);
    // One typing:true per burst, typing:false after 3 s of quiet.
    if (!typing.current) p.onTyping(true);
    clearTimeout(typing.current);
    typing.current = window.setTimeout(() => { typing.current = 0; p.onTyping(false); }, 3000);
  };
  const near = text.length >= p.max * 0.9;
  return (
    <div>
      {p.files.length ? <div class="th">{p.files.map((f) => (
        <div key={f.key}><img class={f.id ? '' : 'up'} src={f.url} alt="" /><button aria-label={p.t('composer.remove')} onClick={() => p.onRemove(f.key)}>×</button></div>
      ))}</div> : null}
      {near ? <div class={`cnt${text.length >= p.max ? ' over' : ''}`}>{p.t('composer.limit', { count: text.length, max: p.max })}</div> : null}
      <div class="cp">
        {p.uploads ? <>
          <button class="ib" aria-label={p.t('composer.attach')} title={p.t('composer.attach')} disabled={p.disabled} onClick={() => file.current?.click()}>{CLIP}</button>
          <input ref={file} type="file" accept="image/jpeg,image/png,image/webp,image/gif" multiple hidden
            onChange={(e) => { const el = e.currentTarget; p.onPick([...(el.files ?? [])]); el.value = ''; }} />
        </> : null}
        <textarea ref={area} rows={1} dir="auto" value={text} maxLength={p.max} placeholder={p.placeholder} aria-label={p.placeholder} disabled={p.disabled}
          onInput={(e) => input(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit(); } }} />
        {p.mic}
        <button class="ib send" aria-label={p.t('composer.send')} title={p.t('composer.send')} disabled={p.disabled} onClick={submit}>{SEND}</button>
      </div>
    </div>
  );
}

export function LeadForm(p: { t: T; form: NonNullable<State['leadForm']>; onSubmit(values: Record<string, string>): void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState('');
  const key = `lead.title.${p.form.reason}`;
  const title = p.t((key in STRINGS ? key : 'lead.title.offline') as StringKey);
  const submit = (e: Event) => {
    e.preventDefault();
    const missing = p.form.fields.find((f) => f.required && !values[f.key]?.trim());
    if (missing) return setProblem(p.t('lead.required', { field: missing.label }));
    p.onSubmit(values);
  };
  return (
    <form class="card lead" onSubmit={submit}>
      <p>{title}</p>
      {p.form.fields.map((f) => {
        const common = { name: f.key, required: f.required, value: values[f.key] ?? '', onInput: (e: any) => setValues({ ...values, [f.key]: e.currentTarget.value }) };
        return (
          <label key={f.key}>{f.label}{f.required ? ' *' : ''}
            {f.type === 'textarea' ? <textarea rows={3} {...common} />
              : f.type === 'select' ? <select {...common}><option value="" />{(f.options ?? []).map((o) => <option value={o}>{o}</option>)}</select>
              : <input type={f.type} {...common} />}
          </label>
        );
      })}
      {problem ? <p class="line error">{problem}</p> : null}
      <div class="row"><button class="btn" type="submit">{p.t('lead.submit')}</button></div>
    </form>
  );
}

export function Confirm(p: { t: T; c: NonNullable<State['confirm']>; onAnswer(approved: boolean): void }) {
  return (
    <div class="card confirm" role="alertdialog">
      <p><b>{p.t('confirm.title')}</b></p>
      <p>{p.t('confirm.body', { tool: p.c.label })}</p>
      <div class="row">
        <button class="btn" onClick={() => p.onAnswer(true)}>{p.t('confirm.allow')}</button>
        <button class="btn alt" onClick={() => p.onAnswer(false)}>{p.t('confirm.deny')}</button>
      </div>
    </div>
  );
}

export function Csat(p: { t: T; rated: number | null; onRate(v: number): void }) {
  if (p.rated) return <div class="card csat"><p>{p.t('csat.thanks')}</p></div>;
  return (
    <div class="card csat">
      <p>{p.t('csat.question')}</p>
      <div class="stars">{[1, 2, 3, 4, 5].map((v) => <button aria-label={`${v} / 5`} onClick={() => p.onRate(v)}>{v}</button>)}</div>
    </div>
  );
}
