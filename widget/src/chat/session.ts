/**
 * The chat socket and the state the UI draws (docs/widget-protocol.md). One Session per mounted chat:
 * connects with the stored visitor token, reconnects with backoff, keeps drafts until the server echoes
 * them, runs page tools when the server asks (tool_call -> tool_result), and tells subscribers after every change.
 */
import type { CameraServerFrame, ClientFrame, ErrorFrame, LeadField, MessageFrame, ServerFrame, ServerFrameOf, VoiceServerFrame, WidgetMessage } from '../../../protocol/widget.js';
import type { Core } from '../types.js';
import { runPageTool, toolSpecs } from './page-tools.js';
import type { SpeechSink } from './speak-link.js';

export interface Msg {
  id: string;
  /** The stored message's place in the conversation (none while streaming or not yet stored). */
  seq?: number;
  role: 'user' | 'assistant' | 'human_agent' | 'system_event' | 'error';
  text: string;
  authorName?: string | null;
  createdAt: number;
  citations?: Array<{ title: string; url?: string | null }>;
  /** Local previews of the images the visitor attached (object URLs). */
  images?: string[];
  attachmentCount?: number;
  streaming?: boolean;
  pending?: boolean;
  /** The server refused it (the error line says why); kept so the visitor can copy the text. */
  failed?: boolean;
  feedback?: 1 | -1;
  /** Spoken (a voice turn, or a reply being spoken): shown with a microphone mark. */
  modality?: 'text' | 'voice';
  /**
   * A streamed reply that will not be finished (the connection dropped and the stored history lacks it, or the
   * server said so): its text stays, marked, with "Ask again". asked: the visitor asked again.
   */
  interrupted?: 'yes' | 'asked';
}

/** Where the session hands voice frames and audio (the chat's VoiceLink, once voice was started). */
export interface VoiceSink {
  onFrame(f: VoiceServerFrame | MessageFrame): void;
  onAudio(data: ArrayBuffer): void;
  /** True when the error answered a voice frame (the voice UI explains it instead of a generic line). */
  onError(f: ErrorFrame): boolean;
  onClose(): void;
  /** A session is live (not ended): its items are being played to the visitor. */
  readonly active: boolean;
}

export type { LeadField };

export interface State {
  /**
   * refused: the server refused this chat for good (a close 4400, 4401, 4403 or 4404); reconnect() tries again.
   */
  conn: 'connecting' | 'open' | 'retrying' | 'refused';
  /**
   * The bot is paused (the ready frame says so): the chat takes no messages, the offline text and the lead form (if
   * lead capture is on) are shown, and the bot's status is checked again now and then, quietly.
   */
  paused: boolean;
  conversationId: string | null;
  messages: Msg[];
  welcome: { message: string; suggestedPrompts: string[] };
  feedback: { thumbs: boolean; csat: boolean };
  agent: { state: 'thinking' | 'tool'; label?: string } | null;
  typing: string | null;
  ended: { askCsat: boolean; rated: number | null } | null;
  leadForm: { reason: string; fields: LeadField[] } | null;
  confirm: { confirmId: string; label: string } | null;
  visitorToken: string | null;
  /** The face's mood from the latest face frame, and when it came (the same mood twice is still news). */
  mood: string | null;
  moodAt: number;
  /** Outside opening hours (behavior.hours.scope bot), from the ready frame and offline frames; mirrored in core.cfg.offline. */
  offline: boolean;
  /** A refused message's text, put back into the message box (key: the message, so the same one refills once). */
  refill?: { text: string; key: string };
}

const PING_MS = 50_000;
const MAX_BACKOFF_MS = 30_000;
/** How often a paused bot's status is checked again (a resumed bot comes back without a reload). */
const PAUSED_RECHECK_MS = 60_000;
/** Microphone frames are dropped rather than queued behind this much unsent data (they would arrive late). */
const MAX_AUDIO_BACKLOG = 64 * 1024;
let seq = 0;
/**
 * Close codes of a connection the server refused after an error frame that said why (docs/widget-protocol.md,
 * Checks at connect): trying again would be refused again, so the chat waits for reconnect() (identify()).
 * 4429 (too many connections) is retried, no sooner than the error frame's retryAfterMs.
 */
const REFUSED_FOR_GOOD = new Set([4400, 4401, 4403, 4404]);
const REFUSED_FOR_NOW = 4429;

export class Session {
  state: State;
  voice: VoiceSink | null = null;
  /** Spoken text replies (speak-link.tsx), when the bot reads its replies aloud. */
  speech: SpeechSink | null = null;
  /** Messages the agent speaks (announced by voice_item), so their streamed captions get the voice mark. */
  private spoken = new Set<string>();
  /** Items that began after the visitor ended voice: never heard, so the server withdraws them (delta_reset) unshown. */
  private unheard = new Set<string>();
  private ws: WebSocket | null = null;
  private listeners = new Set<() => void>();
  private outbox: string[] = [];
  private attempts = 0;
  private retryTimer = 0;
  /** The retryAfterMs of the latest error frame (a 4429 close waits at least this long). */
  private retryAfterMs = 0;
  /** The error frame that came before ready (a refusal): shown if the close that follows refuses for good. */
  private refusal: ErrorFrame | null = null;
  private pingTimer = 0;
  private closed = false;
  private readonly tokenKey: string;

  constructor(private core: Core) {
    this.tokenKey = `sc:vt:${core.botId}`;
    const cfg = core.cfg;
    this.state = {
      conn: 'connecting', conversationId: null, messages: [], welcome: cfg.welcome, feedback: cfg.behavior.feedback,
      agent: null, typing: null, ended: null, leadForm: null, confirm: null, visitorToken: this.storedToken(), mood: null, moodAt: 0,
      offline: !!cfg.offline, paused: false,
    };
    this.connect();
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * The visitor's token: at once when known, else when the socket's ready frame brings it (an upload picked right after
   * opening needs it). Rejects after `timeoutMs` without a connection.
   */
  visitorToken(timeoutMs = 15_000): Promise<string> {
    const known = this.state.visitorToken;
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => { off(); reject(new Error('not connected')); }, timeoutMs);
      const off = this.subscribe(() => {
        const token = this.state.visitorToken;
        if (token) { clearTimeout(timer); off(); resolve(token); }
      });
    });
  }

  private set(patch: Partial<State>) {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((fn) => fn());
  }

  private storedToken(): string | null {
    try { return localStorage.getItem(this.tokenKey); } catch { return null; }
  }

  private connect() {
    const c = this.core;
    const q = new URLSearchParams({ botId: c.botId, pageUrl: location.href.slice(0, 2048), pageTitle: document.title.slice(0, 300) });
    const token = this.storedToken();
    if (token) q.set('visitorToken', token);
    if (c.previewToken) q.set('preview', c.previewToken);
    for (const [k, v] of Object.entries(c.identity)) if (v) q.set(k, String(v));
    const ws = new WebSocket(`${c.base.replace(/^http/, 'ws')}/widget/v1/chat?${q}`);
    this.ws = ws;
    // Binary frames carry voice audio (first byte 0x01); everything else is JSON.
    ws.binaryType = 'arraybuffer';
    ws.onmessage = (e) => {
      // Audio is a voice session's or a spoken reply's; each ignores audio for items it was not told of.
      if (e.data instanceof ArrayBuffer) { this.voice?.onAudio(e.data); this.speech?.onAudio(e.data); return; }
      try { this.onFrame(JSON.parse(String(e.data)) as ServerFrame); } catch (err) { console.error('ServiceChat frame', err); }
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.voice?.onClose();
      this.speech?.onClose();
      clearInterval(this.pingTimer);
      this.ws = null;
      // A reply streaming when the socket dropped: what was shown stays. The history on reconnect has the
      // stored reply if the server finished it; otherwise it stays marked as interrupted.
      if (this.state.messages.some((m) => m.streaming)) this.set({ messages: this.state.messages.map(cutOff) });
      if (this.closed) return;
      if (REFUSED_FOR_GOOD.has(e.code)) {
        const why = this.refusal;
        if (why) { this.core.emit('message', { role: 'error', code: why.code, text: why.message }); this.onError(why); }
        this.set({ conn: 'refused', agent: null, typing: null });
        return;
      }
      // Backoff with jitter so a restarted server is not hit by every widget at once.
      const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.attempts++) * (0.5 + Math.random() / 2);
      const delay = e.code === REFUSED_FOR_NOW ? Math.max(backoff, this.retryAfterMs) : backoff;
      this.set({ conn: 'retrying', agent: null, typing: null });
      this.retryTimer = window.setTimeout(() => this.connect(), delay);
    };
  }

  /** Reconnects now (identity changed, or the server said it is restarting). */
  reconnect() {
    clearTimeout(this.retryTimer);
    this.voice?.onClose();
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    this.attempts = 0;
    this.set({ conn: 'connecting' });
    this.connect();
  }

  /** Paused: once a minute the bot's public config says whether it runs again; then the chat reconnects. */
  private recheckPaused() {
    clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(async () => {
      const c = this.core;
      const preview = c.previewToken ? `?preview=${encodeURIComponent(c.previewToken)}` : '';
      const status = await fetch(`${c.base}/widget/v1/bots/${encodeURIComponent(c.botId)}/config${preview}`)
        .then((r) => (r.ok ? r.json() : null)).then((b) => b?.status, () => null);
      if (this.closed || !this.state.paused) return;
      if (status === 'running') this.reconnect();
      else this.recheckPaused();
    }, PAUSED_RECHECK_MS);
  }

  destroy() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    this.ws?.close();
    this.listeners.clear();
  }

  send(frame: ClientFrame): boolean {
    const text = JSON.stringify(frame);
    if (this.ws?.readyState === WebSocket.OPEN && this.state.conn === 'open') { this.ws.send(text); return true; }
    // Messages typed while reconnecting go out once the socket is back; other frames are moot by then.
    if (frame.t === 'message') this.outbox.push(text);
    return false;
  }

  /** A binary frame (voice audio); false when it was not sent. */
  sendBinary(data: Uint8Array): boolean {
    const ws = this.ws;
    if (ws?.readyState !== WebSocket.OPEN || this.state.conn !== 'open' || ws.bufferedAmount > MAX_AUDIO_BACKLOG) return false;
    ws.send(data);
    return true;
  }

  sendMessage(text: string, attachments: string[] = [], images: string[] = []) {
    const clientId = `c${Date.now().toString(36)}${(seq++).toString(36)}`;
    const draft: Msg = { id: clientId, role: 'user', text, createdAt: Date.now(), pending: true, images, attachmentCount: attachments.length };
    this.set({ messages: [...this.state.messages, draft], ended: null });
    this.send({ t: 'message', text, clientId, ...(attachments.length ? { attachments } : {}) });
  }

  announceTools() {
    if (this.state.conn === 'open') this.send({ t: 'tools', tools: toolSpecs(this.core.tools) });
  }

  addLine(role: 'error' | 'system_event', text: string) {
    this.set({ messages: [...this.state.messages, { id: `l${seq++}`, role, text, createdAt: Date.now() }] });
  }

  patch(patch: Partial<State>) { this.set(patch); }

  /** "Ask again" under an interrupted reply: sends the visitor's message it answered once more. */
  askAgain(id: string) {
    const list = this.state.messages;
    const i = list.findIndex((m) => m.id === id);
    const question = list.slice(0, i).reverse().find((m) => m.role === 'user');
    if (i < 0 || !question) return;
    this.set({ messages: list.map((m) => (m.id === id ? { ...m, interrupted: 'asked' } : m)) });
    this.sendMessage(question.text);
  }

  private upsert(m: Msg, replaceId?: string) {
    const list = this.state.messages;
    const i = list.findIndex((x) => x.id === (replaceId ?? m.id) || x.id === m.id);
    // The stored message keeps what only the widget knows: local image previews and the visitor's thumb.
    let next: Msg[];
    if (i >= 0) next = list.map((x, k) => (k === i ? { ...m, images: x.images, feedback: x.feedback } : x));
    else {
      // A stored message goes before replies still streaming and later messages: a spoken question's words are
      // known only after the agent has begun answering it.
      const at = m.seq === undefined ? -1 : list.findIndex((x) => x.streaming || (x.seq ?? -1) > m.seq!);
      next = at < 0 ? [...list, m] : [...list.slice(0, at), m, ...list.slice(at)];
    }
    this.set({ messages: next });
  }

  private onFrame(f: ServerFrame) {
    const s = this.state;
    switch (f.t) {
      case 'ready': {
        try { localStorage.setItem(this.tokenKey, f.visitorToken); } catch { /* private mode: a new visitor each time */ }
        this.attempts = 0;
        this.refusal = null;
        const history: Msg[] = f.history.map(toMsg);
        const stored = new Set(history.map((m) => m.id));
        // Drafts not yet echoed, and interrupted replies the history does not have (after a crash).
        const cut = s.conversationId === f.conversationId ? s.messages.filter((m) => m.interrupted && !stored.has(m.id)) : [];
        const kept = [...cut, ...s.messages.filter((m) => m.pending)];
        // The view and the face read cfg.offline (the page-load config); the socket keeps it current.
        this.core.cfg.offline = f.offline;
        const paused = !!f.paused;
        const list = history.length || !s.conversationId || s.conversationId !== f.conversationId ? [...history, ...kept] : s.messages;
        // Paused: messages waiting to go out would be refused; they are shown as not sent (their text stays readable).
        if (paused) this.outbox = [];
        this.set({
          // Back from a pause: the offline form goes (the chat itself is back).
          paused, ...(s.paused && !paused ? { leadForm: null } : {}), offline: !!this.core.cfg.offline, conn: 'open', visitorToken: f.visitorToken, conversationId: f.conversationId, welcome: f.welcome, feedback: f.feedback,
          messages: paused ? list.map((m) => (m.pending ? { ...m, pending: false, failed: true } : m)) : list,
        });
        if (paused) this.recheckPaused();
        clearInterval(this.pingTimer);
        this.pingTimer = window.setInterval(() => this.send({ t: 'ping' }), PING_MS);
        this.announceTools();
        this.speech?.onReady();
        for (const text of this.outbox.splice(0)) this.ws?.send(text);
        return;
      }
      case 'conversation':
        // null: New conversation cleared it; the window starts over with the welcome.
        if (f.conversationId === null) this.set({ conversationId: null, messages: [], ended: null, leadForm: null, confirm: null, agent: null });
        else this.set({ conversationId: f.conversationId, ended: null });
        return;
      case 'message': {
        const m = toMsg(f.message);
        this.upsert(m, f.clientId);
        if (m.role === 'assistant') this.set({ agent: null });
        if (m.role === 'human_agent') this.set({ typing: null });
        this.spoken.delete(m.id);
        this.unheard.delete(m.id);
        this.voice?.onFrame(f);
        this.core.emit('message', f.message);
        return;
      }
      case 'delta': {
        const cur = s.messages.find((m) => m.id === f.messageId);
        // Said to be interrupted, or never to be heard: late pieces of it are not drawn.
        if (cur?.interrupted || this.unheard.has(f.messageId)) return;
        const modality = this.spoken.has(f.messageId) ? 'voice' : undefined;
        this.upsert({ id: f.messageId, role: 'assistant', text: (cur?.text ?? '') + f.delta, createdAt: cur?.createdAt ?? Date.now(), streaming: true, modality });
        return;
      }
      case 'voice_item': (this.voice?.active ? this.spoken : this.unheard).add(f.messageId); this.voice?.onFrame(f); return;
      case 'voice': case 'voice_interrupt': case 'voice_item_done': this.voice?.onFrame(f); return;
      case 'speak_item': case 'speak_words': case 'speak_end': this.speech?.onFrame(f); return;
      case 'speak_error': this.speech?.onFrame(f); this.onSpeakError(f.message); return;
      case 'interrupted': this.set({ agent: null, messages: interrupted(s.messages, f, s.conversationId) }); return;
      case 'delta_reset': this.unheard.delete(f.messageId); this.speech?.onFrame(f); this.set({ messages: s.messages.filter((m) => m.id !== f.messageId) }); return;
      case 'offline': this.core.cfg.offline = f.offline; this.set({ offline: f.offline }); return;
      case 'face': this.set({ mood: f.mood, moodAt: Date.now() }); return;
      case 'status': this.set({ agent: f.state === 'idle' ? null : { state: f.state, label: f.tool?.label } }); return;
      case 'typing': this.set({ typing: f.active ? f.authorName || '' : null }); return;
      case 'ended': this.set({ ended: { askCsat: f.askCsat, rated: null }, agent: null, typing: null }); return;
      case 'feedback_ok':
        if (f.kind === 'thumb') this.set({ messages: s.messages.map((m) => (m.id === f.messageId ? { ...m, feedback: f.value } : m)) });
        else if (s.ended) this.set({ ended: { ...s.ended, rated: f.value } });
        return;
      case 'handoff': this.onHandoff(f.available); return;
      case 'lead_form': this.set({ leadForm: { reason: f.reason, fields: f.fields } }); return;
      case 'confirm': this.set({ confirm: { confirmId: f.confirmId, label: f.tool.label || f.tool.name } }); return;
      case 'camera_request': case 'camera_frame_ok': this.onCamera(f); return;
      case 'tool_call':
        void runPageTool(this.core.tools, f.name, f.args).then((r) => this.send({ t: 'tool_result', callId: f.callId, ...r }));
        return;
      case 'error': {
        this.retryAfterMs = f.retryAfterMs ?? 0;
        // Before ready, an error is the server refusing the connection: the close code that follows says what to do
        // (a refusal for good shows it; a busy server is tried again).
        if (s.conn !== 'open') { this.refusal = f; return; }
        if (this.voice?.onError(f)) return;
        if (f.clientId) {
          const refused = s.messages.find((m) => m.id === f.clientId && m.pending);
          // The refused words go back into the message box, to send again without typing them again.
          this.set({ messages: s.messages.map((m) => (m === refused ? { ...m, pending: false, failed: true } : m)), ...(refused ? { refill: { text: refused.text, key: refused.id } } : {}) });
        }
        this.core.emit('message', { role: 'error', code: f.code, text: f.message });
        this.onError(f);
        return;
      }
    }
  }

  /** Filled in by the UI: reading a reply aloud failed (the text stays). */
  onSpeakError: (message: string) => void = () => {};

  /** Filled in by the UI: a handoff was asked for; available says whether someone may join now. */
  onHandoff: (available: boolean) => void = () => {};

  /** Filled in by the camera UI (widget/src/camera): the agent asks for a picture, or a frame was stored. */
  onCamera: (f: CameraServerFrame) => void = () => {};

  /** Filled in by the UI: turns an error frame into a visible line (it owns the wording). */
  onError: (f: Pick<ErrorFrame, 'code' | 'message' | 'retryAfterMs' | 'stage'>) => void = () => {};
}

/**
 * The server's word that a reply will not be finished: the reply shown so far is marked; a reply cut before any of
 * it came still gets its place under the visitor's question, with the note and "Ask again".
 */
function interrupted(list: Msg[], f: ServerFrameOf<'interrupted'>, conversationId: string | null): Msg[] {
  if (list.some((m) => m.id === f.messageId)) return list.map((m) => (m.id === f.messageId ? cutOff(m) : m));
  const last = list[list.length - 1];
  if (f.conversationId !== conversationId || last?.role !== 'user') return list;
  return [...list, { id: f.messageId, role: 'assistant', text: '', createdAt: Date.now(), interrupted: 'yes' }];
}

/** A reply that stopped streaming before it was finished. */
function cutOff(m: Msg): Msg {
  return m.streaming ? { ...m, streaming: false, interrupted: 'yes' } : m;
}

function toMsg(m: WidgetMessage): Msg {
  return {
    id: m.id, seq: m.seq, role: m.role, text: m.text, authorName: m.authorName, createdAt: m.createdAt,
    citations: m.citations, attachmentCount: m.attachments.length, modality: m.modality,
  };
}
