/**
 * The chat's side of voice: loads voice.js on the first start (a dynamic import of the file next to
 * chat.js), makes the AudioContext inside the visitor's click, routes the session's voice frames and audio
 * to the client, keeps the state the voice bar draws, writes why voice ended into the message list, and
 * tells the page (ServiceChat.on('voice')).
 */
import type { Core, VoiceEvent, VoiceStartOptions } from '../types.js';
import type { ErrorFrame, MessageFrame, VoiceServerFrame } from '../../../protocol/widget.js';
import type { VoiceClient, VoiceSnapshot } from '../voice.js';
import type { Session, VoiceSink } from './session.js';
import type { StringKey, T } from './strings.js';

type VoiceModule = typeof import('../voice.js');
export type LevelListener = (kind: 'input' | 'output', level: number) => void;

/** Endings that are news, not faults: written as a plain line instead of an error. */
const CALM = new Set(['visitor', 'team_takeover', 'max_duration', 'idle', 'conversation_ended']);
/** The ended bar stays this long, then the line in the messages is what remains. */
const ENDED_SHOW_MS = 4000;

let module: Promise<VoiceModule> | null = null;

export function voiceSupported(): boolean {
  return window.isSecureContext && !!navigator.mediaDevices?.getUserMedia && typeof AudioWorkletNode === 'function';
}

export class VoiceLink implements VoiceSink {
  /** What the bar draws; null: no bar. */
  view: VoiceSnapshot | null = null;
  private client: VoiceClient | null = null;
  private ctx: AudioContext | null = null;
  private listeners = new Set<() => void>();
  private levels = new Set<LevelListener>();
  private lastEvent = '';
  private hideTimer = 0;

  constructor(private readonly core: Core, private readonly session: Session, private readonly t: T) {
    session.voice = this;
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Input (microphone) and output (the agent's voice) levels 0..1; the face engine uses output for lip sync. */
  onLevel(fn: LevelListener): () => void {
    this.levels.add(fn);
    return () => this.levels.delete(fn);
  }

  /** The agent's voice level right now (0 when silent). */
  get outputLevel(): number { return this.client?.outputLevel ?? 0; }

  get active(): boolean { return !!this.view && this.view.state !== 'ended'; }

  /** A team member has the conversation (voice ended by a takeover, or they wrote since the AI last did). */
  teamHas = false;

  /** Whether the microphone button is offered: a page and browser that can do voice, and no team member answering. */
  get offered(): boolean { return voiceSupported() && !this.teamHas; }

  start(opts: VoiceStartOptions = {}) {
    const v = this.core.cfg.voice;
    if (!v?.enabled) { this.emit({ state: 'ended', reason: 'disabled' }); return; }
    if (this.active) return;
    const ptt = v.pushToTalk ?? 'allowed';
    // The page asked for push-to-talk, which this bot does not allow: refused, rather than an open microphone.
    if (opts.mode === 'ptt' && ptt === 'off') { this.emit({ state: 'ended', reason: 'ptt_off' }); return; }
    const mode = ptt === 'only' ? 'ptt' : ptt === 'off' ? undefined : opts.mode;
    clearTimeout(this.hideTimer);
    if (!voiceSupported()) return this.failed('unsupported');
    try {
      this.ctx ??= new AudioContext({ latencyHint: 'interactive' });
    } catch {
      return this.failed('unsupported');
    }
    void this.ctx.resume();
    this.show({ state: 'starting', mode: mode ?? 'hands_free', muted: false, talking: false, playing: false });
    const url = new URL(typeof __VOICE_FILE__ == 'string' ? __VOICE_FILE__ : 'voice.js', import.meta.url).href;
    (module ??= import(/* @vite-ignore */ url) as Promise<VoiceModule>).then((m) => {
      if (this.view?.state !== 'starting') return;
      this.client ??= m.createVoiceClient({
        ctx: this.ctx!,
        send: (f) => this.session.send(f),
        sendAudio: (b) => this.session.sendBinary(b),
        onChange: (s) => this.show(s),
        onInputLevel: (l) => this.levels.forEach((fn) => fn('input', l)),
        onOutputLevel: (l) => this.levels.forEach((fn) => fn('output', l)),
      });
      return this.client.start(mode);
    }).catch((err) => {
      console.error('ServiceChat: could not load voice', err);
      module = null;
      this.failed('load_failed');
    });
  }

  stop() {
    if (!this.active) return;
    if (this.client && this.client.snap.state !== 'ended') void this.client.stop();
    else this.show({ ...this.view!, state: 'ended', reason: 'visitor' });
  }

  mute(muted: boolean) { this.client?.setMuted(muted); }
  ptt(down: boolean) { this.client?.ptt(down); }

  onFrame(f: VoiceServerFrame | MessageFrame) {
    // A team member writing: they have the conversation; the AI writing (not a voice turn stored as voice ends) after
    // the team handed it back: it is the AI's again.
    if (f.t === 'message' && f.message.role === 'human_agent') this.setTeam(true);
    else if (f.t === 'message' && f.message.role === 'assistant' && f.message.modality !== 'voice') this.setTeam(false);
    this.client?.onFrame(f);
  }

  private setTeam(on: boolean) {
    if (this.teamHas === on) return;
    this.teamHas = on;
    this.listeners.forEach((fn) => fn());
  }
  onAudio(data: ArrayBuffer) { this.client?.onAudio(data); }
  onError(f: ErrorFrame): boolean { return this.client?.onError(f) ?? false; }
  onClose() { this.client?.onClose(); }

  destroy() {
    clearTimeout(this.hideTimer);
    void this.client?.stop();
    if (this.session.voice === this) this.session.voice = null;
    this.listeners.clear();
    this.levels.clear();
    void this.ctx?.close();
  }

  private failed(reason: string) {
    this.show({ state: 'ended', mode: 'hands_free', muted: false, talking: false, playing: false, reason });
  }

  private show(s: VoiceSnapshot) {
    const before = this.view;
    this.view = s;
    if (s.state === 'ended' && before?.state !== 'ended') this.ended(s, before);
    const state = s.state === 'starting' ? 'connecting' : s.state === 'listening' && s.muted ? 'muted' : s.state;
    this.emit(s.state === 'ended' ? { state, reason: s.reason } : { state });
    this.listeners.forEach((fn) => fn());
  }

  private ended(s: VoiceSnapshot, before: VoiceSnapshot | null) {
    // The audio thread rests until the next start (resumed then, inside the visitor's click).
    void this.ctx?.suspend();
    const reason = s.reason ?? 'engine_error';
    if (reason === 'team_takeover') this.setTeam(true);
    // Stopped before it began: nothing to report.
    if (!(reason === 'visitor' && before?.state === 'starting')) {
      const key = `voice.ended.${reason}`;
      // A session the conversation refused (taken over, ended) keeps the server's words; every other ending is said
      // in the visitor's language (a provider's own words are the operator's, never shown here).
      // t() answers an unknown key with the key itself (strings.ts is in chat.js, not in this part).
      const said = this.t(key as StringKey);
      const text = reason === 'refused' && s.message ? s.message : said !== key ? said : this.t('voice.ended.engine_error');
      this.session.addLine(CALM.has(reason) ? 'system_event' : 'error', text);
    }
    this.hideTimer = window.setTimeout(() => {
      if (this.view?.state !== 'ended') return;
      this.view = null;
      this.listeners.forEach((fn) => fn());
    }, ENDED_SHOW_MS);
  }

  private emit(e: VoiceEvent) {
    const key = `${e.state}:${e.reason ?? ''}`;
    if (key === this.lastEvent) return;
    this.lastEvent = key;
    this.core.emit('voice', e);
  }
}
