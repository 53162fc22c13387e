/**
 * Spoken text replies (appearance.face.textReplies speak; docs/widget-protocol.md, Spoken replies). Browsers
 * play sound only after a click or key in the page, so the widget asks the server for speech (`speak` on) only
 * after the visitor's first gesture in the chat, and makes its AudioContext inside that gesture; until then
 * replies are mimed. The visitor's choice (the sound button) is remembered per bot. voice.js is loaded on the
 * first spoken reply; its worklet player plays the audio. The face engine reads the output level (per render
 * chunk, with onLevel) and item timing (onSpeech) from here.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Core } from '../types.js';
import type { ServerFrameOf, SpokenWord } from '../../../protocol/widget.js';
import type { Player } from '../voice.js';
import type { Session } from './session.js';
import type { T } from './strings.js';

type VoiceModule = typeof import('../voice.js');
/** The build names voice.js with a content hash (esbuild define); absent, the plain name. */
declare const __VOICE_FILE__: string | undefined;

/** A word of a spoken reply and when it is heard, in ms from the start of the reply's audio. */
export type { SpokenWord };
/** The frames about replies read aloud (and delta_reset: a dropped reply is not read on). */
export type SpeechFrame = ServerFrameOf<'speak_item' | 'speak_words' | 'speak_end' | 'speak_error' | 'delta_reset'>;
/**
 * What the face engine hears about a spoken reply: it starts, its words with their times (only where the provider
 * times them), and its end with the ms heard.
 */
export type SpeechEvent =
  | { type: 'start'; messageId: string }
  | { type: 'words'; messageId: string; words: SpokenWord[] }
  | { type: 'end'; messageId: string; ms: number };

/** Where the session hands speak frames and audio. */
export interface SpeechSink {
  onFrame(f: SpeechFrame): void;
  onAudio(data: ArrayBuffer): void;
  onReady(): void;
  onClose(): void;
}

export function speaksReplies(core: Core): boolean {
  return (core.cfg.appearance as { face?: { textReplies?: string } }).face?.textReplies === 'speak';
}

export class SpeakLink implements SpeechSink {
  /** The visitor's choice (the sound button); on unless they turned it off. */
  enabled: boolean;
  /** The visitor has clicked or typed in the chat: the browser lets it play sound. */
  unlocked = false;
  /** A reply's voice is playing now (the sound button shows it). */
  playing = false;
  level = 0;
  private ctx: AudioContext | null = null;
  private player: Player | null = null;
  private loading: Promise<Player | null> | null = null;
  /** The reply whose audio is arriving, and audio that came before the player was ready. */
  private item: string | null = null;
  private early: Array<[string, ArrayBuffer]> = [];
  private listeners = new Set<() => void>();
  private levels = new Set<(level: number) => void>();
  private speech = new Set<(e: SpeechEvent) => void>();
  private readonly key: string;

  constructor(private readonly core: Core, private readonly session: Session) {
    this.key = `sc:speak:${core.botId}`;
    let stored: string | null = null;
    try { stored = localStorage.getItem(this.key); } catch { /* private mode: on */ }
    this.enabled = stored !== '0';
    if (speaksReplies(core)) session.speech = this;
  }

  subscribe(fn: () => void): () => void { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  /** The reply's voice level 0..1 about 40 times a second while it plays (0 when it stops): lip sync. */
  onLevel(fn: (level: number) => void): () => void { this.levels.add(fn); return () => this.levels.delete(fn); }
  /** The reply playing and how many ms of it have been heard (match against word times), or null. */
  position(): { messageId: string; ms: number } | null {
    return this.item && this.player ? { messageId: this.item, ms: this.player.msOf(this.item) } : null;
  }
  /** When each spoken reply starts, its timed words (kind D providers), and its end (with the ms heard). */
  onSpeech(fn: (e: SpeechEvent) => void): () => void { this.speech.add(fn); return () => this.speech.delete(fn); }

  /** A click or key in the chat: the first one unlocks sound (the AudioContext must be made inside it). */
  gesture(): void {
    if (this.unlocked || !speaksReplies(this.core)) return;
    this.unlocked = true;
    if (this.enabled) this.unlock();
  }

  /** The sound button. */
  toggle(): void {
    this.enabled = !this.enabled;
    try { localStorage.setItem(this.key, this.enabled ? '1' : '0'); } catch { /* not remembered */ }
    this.unlocked = true;
    if (this.enabled) this.unlock();
    else { this.session.send({ t: 'speak', on: false }); this.silence(); }
    this.listeners.forEach((fn) => fn());
  }

  private unlock(): void {
    try {
      this.ctx ??= new AudioContext({ latencyHint: 'interactive' });
      void this.ctx.resume();
    } catch { return; /* no audio here: replies stay mimed */ }
    this.session.send({ t: 'speak', on: true });
  }

  onReady(): void {
    if (this.unlocked && this.enabled && this.ctx) this.session.send({ t: 'speak', on: true });
  }

  onFrame(f: SpeechFrame): void {
    if (!this.enabled || !this.ctx) return;
    switch (f.t) {
      case 'speak_item':
        if (this.item) this.player?.end(this.item);
        this.item = f.itemId;
        void this.ready(f.rate);
        this.speech.forEach((fn) => fn({ type: 'start', messageId: f.messageId }));
        return;
      case 'speak_words':
        if (f.itemId === this.item) this.speech.forEach((fn) => fn({ type: 'words', messageId: f.itemId, words: f.words }));
        return;
      case 'speak_end':
        if (f.itemId === this.item) { this.player ? this.player.end(f.itemId) : this.early.push([f.itemId, new ArrayBuffer(0)]); }
        return;
      case 'delta_reset':
        // The reply was dropped: so is its voice.
        if (f.messageId === this.item) this.silence();
        return;
    }
  }

  onAudio(data: ArrayBuffer): void {
    const b = new Uint8Array(data);
    if (!this.enabled || !this.item || b[0] !== 1 || b.length < 3) return;
    const pcm = data.slice(1, 1 + ((b.length - 1) & ~1));
    if (this.player) this.player.push(this.item, pcm);
    else this.early.push([this.item, pcm]);
  }

  onClose(): void { this.silence(); }

  destroy(): void {
    this.silence();
    this.player?.close();
    this.player = null;
    if (this.session.speech === this) this.session.speech = null;
    this.listeners.clear(); this.levels.clear(); this.speech.clear();
    void this.ctx?.close();
  }

  /** Loads voice.js and makes the player once; audio that arrives meanwhile is kept. */
  private ready(rate: number): Promise<Player | null> {
    if (this.player) return Promise.resolve(this.player);
    const url = new URL(typeof __VOICE_FILE__ == 'string' ? __VOICE_FILE__ : 'voice.js', import.meta.url).href;
    this.loading ??= (import(/* @vite-ignore */ url) as Promise<VoiceModule>)
      .then((m) => m.createSpeechPlayer(this.ctx!, rate, {
        state: (playing) => { this.playing = playing; this.listeners.forEach((fn) => fn()); },
        level: (l) => { this.level = l; this.levels.forEach((fn) => fn(l)); },
        done: (item, ms) => this.speech.forEach((fn) => fn({ type: 'end', messageId: item, ms })),
      }))
      .then((p) => {
        this.player = p;
        for (const [item, pcm] of this.early.splice(0)) pcm.byteLength ? p.push(item, pcm) : p.end(item);
        return p;
      })
      .catch((err) => { console.error('ServiceChat: could not load the voice player', err); this.loading = null; this.early = []; return null; });
    return this.loading;
  }

  /** Stops what is playing now (sound off, reply dropped, connection lost). */
  private silence(): void {
    this.item = null;
    this.early = [];
    if (this.player?.playing) void this.player.stop();
  }
}

// Functions, not constants: this file is in chat-speak.js, whose preact is handed in after it is evaluated.
const SOUND_ON = () => <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path fill="currentColor" d="M3 9v6h4l5 5V4L7 9H3zm13.5 3a4.5 4.5 0 0 0-2.5-4v8a4.5 4.5 0 0 0 2.5-4zM14 3.2v2.1a7 7 0 0 1 0 13.4v2.1a9 9 0 0 0 0-17.6z" /></svg>;
const SOUND_OFF = () => <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path fill="currentColor" d="M3 9v6h4l5 5V4L7 9H3zm13.6 3 2.7-2.7-1.4-1.4-2.7 2.7-2.7-2.7-1.4 1.4 2.7 2.7-2.7 2.7 1.4 1.4 2.7-2.7 2.7 2.7 1.4-1.4z" /></svg>;

/** The header's sound button: replies read aloud on or off (shown only when the bot speaks replies). */
export function SoundButton({ sp, t }: { sp: SpeakLink; t: T }) {
  const [, redraw] = useState(0);
  useEffect(() => sp.subscribe(() => redraw((n) => n + 1)), [sp]);
  const label = t(sp.enabled ? 'speak.off' : 'speak.on');
  return <button class={`ib sound${sp.playing ? ' playing' : ''}`} aria-pressed={sp.enabled} aria-label={label} title={label} onClick={() => sp.toggle()}>{sp.enabled ? SOUND_ON() : SOUND_OFF()}</button>;
}
