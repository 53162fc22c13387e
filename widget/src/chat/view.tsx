/** The chat window in every layout: header, messages, suggested prompts, cards, composer, attribution. */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Core } from '../types.js';
import { loadMarkdown, Markdown } from './markdown.js';
import { Menu } from './menu.js';
import { Composer, Confirm, Csat, Interrupted, LeadForm, Message, type Pending } from './parts.js';
import type { Session, State } from './session.js';
import type { T } from './strings.js';
import { downloadText, transcriptMarkdown } from './transcript.js';
import { uploadImage, uploadProblem } from './uploads.js';
import type { VoiceLink } from './voice-link.js';
import type { SpeakLink } from './speak-link.js';
import { Face, FaceButton, hasFace, useFaceShown } from './face-view.js';
import { MOBILE_QUERY } from '../theme.js';
import { useClosing } from './closing.js';

/** Whether a media query matches now, following changes (a phone turned, a window resized). */
function useMedia(query: string): boolean {
  const [on, setOn] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const mq = matchMedia(query);
    const change = () => setOn(mq.matches);
    mq.addEventListener('change', change);
    return () => mq.removeEventListener('change', change);
  }, [query]);
  return on;
}

const FOCUSABLE = 'button,[href],textarea,input,select,[tabindex]:not([tabindex="-1"])';

/** Tab and Shift+Tab go round the window's own controls instead of into the page hidden behind it. */
function trapTab(e: KeyboardEvent, box: HTMLElement) {
  const items = [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length);
  if (!items.length) return;
  const at = (box.getRootNode() as ShadowRoot).activeElement;
  const first = items[0], last = items[items.length - 1];
  if (e.shiftKey ? at === first || !box.contains(at) : at === last) { e.preventDefault(); (e.shiftKey ? last : first).focus(); }
}

/**
 * The optional parts the loader fetched for this bot (widget/src/parts/; null or absent: not on, or not loaded).
 * Each is a bundle of its own, so only its types are imported here.
 */
export interface Parts {
  voice?: typeof import('../parts/voice.js') | null;
  speak?: typeof import('../parts/speak.js') | null;
  camera?: typeof import('../parts/camera.js') | null;
}

function useSession(s: Session): State {
  const [st, setSt] = useState(s.state);
  useEffect(() => s.subscribe(() => setSt(s.state)), [s]);
  return st;
}

export function App({ core, s, v, sp, parts, t, open }: { core: Core; s: Session; v: VoiceLink | null; sp: SpeakLink | null; parts: Parts; t: T; open: boolean }) {
  const st = useSession(s);
  const V = v && parts.voice;
  // Hooks from a part: whether a part is there stays the same for the life of the window.
  const voice = V ? V.useVoice(v) : null;
  const cfg = core.cfg;
  const a = cfg.appearance;
  const [files, setFiles] = useState<Pending[]>([]);
  const list = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  // Closing: drawn, inert, while its closing animation plays; then hidden.
  const closing = useClosing(open, box);
  const layout = a.layout;
  const title = cfg.texts.title || cfg.identity.agentName;
  const subtitle = cfg.texts.subtitle || cfg.identity.role;
  const started = st.messages.some((m) => m.role === 'user');
  const [faceShown, toggleFace] = useFaceShown(core);
  const withFace = hasFace(core);
  const face = withFace && faceShown ? <Face core={core} st={st} sp={sp} v={v} cls={a.face?.size ?? 'medium'} open={open} /> : null;
  // Outside opening hours (behavior.hours.scope bot): the site's offline text says so up front, until the server
  // has sent the same text into the conversation (its answer to a message then): it is said once.
  // A paused bot is offline too (the server says so in ready); its message box is off, so the text stays up.
  const told = cfg.offline && !st.paused && st.messages.some((m) => m.role === 'system_event' && m.text === cfg.texts.offline);
  const offline = cfg.offline && !told ? <div class={`line offline${st.paused ? ' paused' : ''}`} role="status">{cfg.texts.offline || t('status.paused')}</div> : null;

  s.onSpeakError = (message) => s.addLine('error', message);
  // Nobody available: the server sends the offline text itself (and the lead form), so only the wait is told here.
  s.onHandoff = (available) => { if (available) s.addLine('system_event', t('handoff.waiting')); };
  s.onError = (f) => {
    const known = ['rate_limited', 'session_limit', 'internal', 'unavailable', 'insufficient_storage'].includes(f.code);
    // A cascade voice stage that failed mid-turn says which, in the visitor's language; the chat goes on.
    if (f.stage) s.addLine('error', t(`voice.failed.${f.stage}`));
    else s.addLine('error', known ? t(`error.${f.code}` as 'error.internal') : f.message);
    if (f.code === 'unavailable') setTimeout(() => s.reconnect(), 1000);
  };

  useEffect(() => { const el = list.current; if (el) el.scrollTop = el.scrollHeight; }, [st.messages, st.agent, st.typing, st.leadForm, st.confirm, st.ended, open, !voice]);
  // Voice over: the keyboard goes back to the message box.
  useEffect(() => { if (voice?.state === 'ended') box.current?.querySelector('textarea')?.focus(); }, [voice?.state]);
  // Opening moves the keyboard to the message box; the inline layout is open from the start and must not take
  // focus (or scroll the host page to itself) on load.
  // A layout effect: focus as soon as the window is drawn, not after the next frame.
  useLayoutEffect(() => { if (open && layout !== 'inline') box.current?.querySelector('textarea')?.focus({ preventScroll: true }); }, [open]);
  // Modal: the modal drawer, and any window filling a phone's screen; the page behind cannot be reached.
  const phone = useMedia(MOBILE_QUERY);
  const modal = layout !== 'inline' && ((layout === 'drawer' && a.drawer.modal) || (phone && a.mobile.fullscreen));
  // Escape closes the window (the menu handles its own Escape first); Tab stays inside a modal window.
  const onKey = layout === 'inline' ? undefined : (e: KeyboardEvent) => {
    if (e.key === 'Escape' && !e.defaultPrevented) { e.preventDefault(); core.close(); }
    if (e.key === 'Tab' && modal && box.current) trapTab(e, box.current);
  };
  useEffect(() => {
    // A modal drawer stops the page behind it from scrolling while it is open.
    if (layout !== 'drawer' || !a.drawer.modal || !open) return;
    const html = document.documentElement;
    const before = html.style.overflow;
    html.style.overflow = 'hidden';
    return () => { html.style.overflow = before; };
  }, [open]);

  const cam = parts.camera ? parts.camera.useCamera(core, s, t, !!voice && voice.state !== 'ended', open) : null;
  const send = (text: string): boolean => {
    if (text.length > cfg.maxMessageChars) return false;
    // A paused bot takes no messages (its box is off; a suggested prompt is not sent either): the visitor is told why.
    if (st.paused) { s.addLine('error', t('paused.notSent')); return false; }
    cam?.beforeSend();
    void loadMarkdown();
    const done = files.filter((f) => f.id);
    s.sendMessage(text, done.map((f) => f.id!), done.map((f) => f.url));
    setFiles([]);
    return true;
  };
  const pick = (picked: File[]) => {
    const max = cfg.uploads.maxPerMessage;
    if (files.length + picked.length > max) s.addLine('error', t('error.tooMany', { max }));
    for (const file of picked.slice(0, Math.max(0, max - files.length))) {
      if (file.size > cfg.uploads.maxMB * 1024 * 1024) { s.addLine('error', t('error.tooBig', { max: cfg.uploads.maxMB })); continue; }
      const p: Pending = { key: Math.random().toString(36).slice(2), url: URL.createObjectURL(file), id: null };
      setFiles((fs) => [...fs, p]);
      s.visitorToken().then((token) => uploadImage(core.base, core.botId, token, file, core.previewToken))
        .then((id) => setFiles((fs) => fs.map((f) => (f.key === p.key ? { ...f, id } : f))))
        .catch((err: Error) => {
          setFiles((fs) => fs.filter((f) => f.key !== p.key));
          const key = uploadProblem(err);
          // The server's message is for developers; the visitor gets plain words (and a generic line otherwise).
          s.addLine('error', key === 'error.upload' ? t('error.internal') : t(key, { max: cfg.uploads.maxMB }));
          console.warn('ServiceChat: upload refused:', err.message);
        });
    }
  };
  const menuItems: Array<[string, () => void]> = [];
  // A paused bot offers neither (the server would refuse them); the transcript stays.
  if (cfg.behavior.newConversation && !st.paused) menuItems.push([t('menu.new'), () => s.send({ t: 'new_conversation' })]);
  if (cfg.behavior.transcriptDownload) menuItems.push([t('menu.transcript'), () => downloadText(`chat-${new Date().toISOString().slice(0, 10)}.md`, transcriptMarkdown(st.messages, title, t))]);
  if (cfg.behavior.handoff?.enabled && !st.paused) menuItems.push([t('menu.handoff'), () => s.send({ t: 'handoff' })]);

  const askAgain = (id: string) => s.askAgain(id);
  // While voice runs, its bar says Thinking…; the status line keeps only what the bar does not say.
  const status = <Status st={st} t={t} voiceLive={!!voice && voice.state !== 'ended'} />;
  const prompts = !started && !st.paused && st.welcome.suggestedPrompts.length ? (
    <div class="sp">{st.welcome.suggestedPrompts.map((q) => <button onClick={() => send(q)}>{q}</button>)}</div>
  ) : null;
  const cards = <>
    {cam?.panel}
    {st.confirm ? <Confirm t={t} c={st.confirm} onAnswer={(approved) => { s.send({ t: 'confirm', confirmId: st.confirm!.confirmId, approved }); s.patch({ confirm: null }); }} /> : null}
    {st.leadForm ? <LeadForm t={t} form={st.leadForm} onSubmit={(fields) => { s.send({ t: 'lead', fields }); s.patch({ leadForm: null }); s.addLine('system_event', t('lead.thanks')); }} /> : null}
    {st.ended ? <div class="line">{t('ended')}</div> : null}
    {st.ended?.askCsat && st.feedback.csat ? <Csat t={t} rated={st.ended.rated} onRate={(value) => s.send({ t: 'csat', value })} /> : null}
  </>;
  // No microphone where voice cannot work (an insecure page, an old browser) or while a team member answers.
  const canTalk = !!V && !!v?.offered && !st.paused && !(voice && voice.state !== 'ended');
  const mic = V && canTalk ? <V.MicButton t={t} onStart={() => v!.start()} solo={layout === 'floating' && !a.floating.composer} /> : null;
  const bar = V && voice ? <V.VoiceBar v={v!} s={voice} t={t} /> : null;
  const composer = (
    // The start form comes first: the message box waits for it (a message before it would be refused); a paused
    // bot takes no messages at all.
    <Composer t={t} disabled={st.paused || st.leadForm?.reason === 'start'} refill={st.refill} mic={cam && !st.paused ? <>{cam.button}{mic}</> : mic} placeholder={cfg.texts.placeholder} max={cfg.maxMessageChars} uploads={cfg.uploads.enabled} files={files}
      onSend={send} onPick={pick} onRemove={(k) => setFiles((fs) => fs.filter((f) => f.key !== k))}
      onTyping={(active) => {
        // The visitor starts writing: the Markdown renderer is fetched now, before the reply streams.
        if (active) void loadMarkdown();
        if (st.conversationId) s.send({ t: 'typing', active });
      }} />
  );
  const messages = (
    // Focusable, so the keyboard can scroll it when no link or button inside takes focus.
    <div class="ms" ref={list} tabIndex={0} role="log" aria-label={t('messages.label')} aria-live="polite" aria-busy={st.messages.some((m) => m.streaming)}>
      {st.welcome.message ? <div class="m assistant welcome"><Markdown text={st.welcome.message} /></div> : null}
      {st.messages.map((m, i) => <Message key={m.id} m={m} t={t} agent={cfg.identity.agentName} time={lastOfRun(st.messages, i)} thumbs={st.feedback.thumbs} citations={cfg.behavior.citations} onThumb={(messageId, value) => s.send({ t: 'feedback', messageId, value })} onAskAgain={askAgain} />)}
    </div>
  );
  const theme = a.theme.mode === 'auto' ? 'auto' : a.theme.mode === 'dark' ? 'dark' : '';
  const S = parts.speak;
  const sound = S && sp ? <S.SoundButton sp={sp} t={t} /> : null;
  const close = layout === 'inline' ? null : <button class="ib close" aria-label={t('header.close')} title={t('header.close')} onClick={() => core.close()}>×</button>;

  if (layout === 'floating') {
    // The caption is the latest thing said to the visitor: a reply, or a line such as why voice ended.
    const last = [...st.messages].reverse().find((m) => m.role !== 'user');
    return (
      <div ref={box} class={`w floating ${theme}${closing ? ' closing' : ''}`} hidden={!open && !closing} inert={closing} role="dialog" aria-modal={modal ? 'true' : undefined} aria-label={title} onKeyDown={onKey}>
        <div class="fl">
          <div class="top">{sound}{close}</div>
          {withFace ? <Face core={core} st={st} sp={sp} v={v} cls="big" open={open} /> : null}
          {offline}
          {a.captions ? <div class={`cap${last?.role === 'error' ? ' error' : ''}`} aria-live="polite">{last && last.role !== 'assistant' && last.role !== 'human_agent' ? last.text : <><Markdown text={last?.text ?? st.welcome.message} streaming={last?.streaming} />{last ? <Interrupted m={last} t={t} onAskAgain={askAgain} /> : null}</>}</div> : messages}
          {status}
          {prompts}
          {cards}
          {bar}
          {a.floating.composer ? composer : mic}
        </div>
      </div>
    );
  }
  return (
    <>
      {layout === 'drawer' && a.drawer.modal && open ? <div class="bd" onClick={() => core.close()} /> : null}
      <div ref={box} class={`w ${layout} ${theme}${closing ? ' closing' : ''}`} hidden={!open && !closing} inert={closing} role={layout === 'inline' ? 'region' : 'dialog'} aria-modal={modal ? 'true' : undefined} aria-label={title} onKeyDown={onKey}>
        <div class="hd">
          {/* The letter avatar stands for the agent only when its face is not shown right below. */}
          {face ? null : <div class="av" aria-hidden="true">{title.slice(0, 1).toUpperCase()}</div>}
          <div class="tt"><b>{title}</b>{subtitle ? <small>{subtitle}</small> : null}</div>
          {sound}
          {withFace ? <FaceButton shown={faceShown} onToggle={toggleFace} t={t} /> : null}
          {menuItems.length ? <Menu label={t('menu.label')} items={menuItems} /> : null}
          {close}
        </div>
        {face}
        {offline}
        {messages}
        {prompts}
        {cards}
        {status}
        {bar}
        {composer}
        {cfg.behavior.poweredBy ? <div class="pw">{t('poweredBy')}</div> : null}
      </div>
    </>
  );
}

/** A time under the last message of a run: the next one is from someone else or more than 5 minutes later. */
function lastOfRun(ms: State['messages'], i: number): boolean {
  const m = ms[i];
  const next = ms[i + 1];
  if (m.role === 'system_event' || m.role === 'error') return false;
  return !next || next.role !== m.role || next.createdAt - m.createdAt > 300_000;
}

function Status({ st, t, voiceLive }: { st: State; t: T; voiceLive: boolean }) {
  let text = '';
  // A paused bot is said once, in the line above the messages (the offline line).
  if (st.conn === 'connecting' || st.conn === 'retrying' || st.conn === 'refused') text = t(st.conn === 'retrying' ? 'status.retrying' : st.conn === 'refused' ? 'status.refused' : 'status.connecting');
  else if (st.typing !== null) text = t('status.typing', { name: st.typing || t('status.someone') });
  else if (st.agent && (st.agent.state === 'tool' || !voiceLive)) text = st.agent.state === 'tool' ? t('status.tool', { tool: st.agent.label ?? '' }) : t('status.thinking');
  const busy = st.conn === 'open' && (st.typing !== null || (st.agent && text !== ''));
  return <div class="st" aria-live="polite">{busy ? <span class="dots"><span /><span /><span /></span> : null}{text}</div>;
}
