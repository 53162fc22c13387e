/**
 * One voice session on the chat socket (docs/widget-protocol.md, Voice): opens the microphone, sends
 * voice_start, streams 20 ms audio frames while the session listens, plays the agent's items, answers
 * voice_interrupt with voice_played, and handles push-to-talk and mute. It knows nothing of the UI: it
 * reports a snapshot after every change and the input/output levels as they come.
 */
import type { ClientFrame, ErrorFrame, MessageFrame, VoiceServerFrame } from '../../../protocol/widget.js';
import { Capture, levelOf, MicError, openMic, rmsOf } from './capture.js';
import { Player } from './player.js';
import { loadWorklets } from './worklets.js';

export type VoiceState = 'starting' | 'connecting' | 'listening' | 'thinking' | 'speaking' | 'ended';
export type VoiceMode = 'hands_free' | 'ptt';

export interface VoiceSnapshot {
  state: VoiceState;
  mode: VoiceMode;
  muted: boolean;
  /** Push-to-talk is held. */
  talking: boolean;
  /** The agent's audio is playing now. */
  playing: boolean;
  /** With `ended`: the server's reason, or the client's (permission_denied, no_microphone, mic_busy,
   *  unsupported, needs_click, rate_limited, unavailable, refused, socket_closed, no_answer). */
  reason?: string;
  /** With `ended`: the server's own wording, if it sent one. */
  message?: string;
}

export interface VoiceDeps {
  /** Made by the caller inside the visitor's click, so the browser lets it play sound. */
  ctx: AudioContext;
  /** Sends a JSON frame on the chat socket; false when the socket is not open. */
  send(frame: ClientFrame): boolean;
  /** Sends a binary frame on the chat socket (dropped when the socket is backed up). */
  sendAudio(bytes: Uint8Array): void;
  onChange(s: VoiceSnapshot): void;
  /** The microphone's level 0..1 while it is being sent, else 0 (about 50 a second). */
  onInputLevel?(level: number): void;
  /** The agent's voice level 0..1 as it plays (about 40 a second; 0 when it stops). For the meter and lip sync. */
  onOutputLevel?(level: number): void;
}

const LIVE = new Set<VoiceState>(['listening', 'thinking', 'speaking']);
/** The server answers voice_start at once with `connecting`; silence this long means it never will. */
const ANSWER_MS = 20_000;
/** Refusals of microphone frames that arrive this long after the end were about frames already on the way. */
const LATE_AUDIO_MS = 3000;
/** How long a suspended AudioContext may take to resume before the visitor is asked to click. */
const RESUME_MS = 1500;

export class VoiceClient {
  snap: VoiceSnapshot = { state: 'ended', mode: 'hands_free', muted: false, talking: false, playing: false };
  private stream: MediaStream | null = null;
  private capture: Capture | null = null;
  private player: Player | null = null;
  private sessionId: string | null = null;
  private sentStart = false;
  /** The agent's item whose audio is arriving, and the message its captions stream into. */
  private item: string | null = null;
  private itemMessage: string | null = null;
  private timer = 0;
  private endedAt = 0;

  constructor(private readonly d: VoiceDeps) {}

  private set(patch: Partial<VoiceSnapshot>) {
    this.snap = { ...this.snap, ...patch };
    this.d.onChange(this.snap);
  }

  /** The agent's current voice level 0..1 (0 when silent). */
  get outputLevel(): number { return this.player?.level ?? 0; }

  async start(mode?: VoiceMode): Promise<void> {
    if (this.snap.state !== 'ended') return;
    this.sessionId = null;
    this.sentStart = false;
    this.set({ state: 'starting', mode: mode ?? 'hands_free', muted: false, talking: false, playing: false, reason: undefined, message: undefined });
    void this.d.ctx.resume();
    let stream: MediaStream;
    try {
      [stream] = await Promise.all([openMic(), loadWorklets(this.d.ctx)]);
    } catch (err) {
      return this.end(err instanceof MicError ? err.reason : 'unsupported');
    }
    // Browsers run audio only after a click in the page: started from script alone, the context stays suspended.
    if (this.d.ctx.state !== 'running') await Promise.race([this.d.ctx.resume().catch(() => {}), new Promise((r) => setTimeout(r, RESUME_MS))]);
    const problem = (this.snap.state as VoiceState) !== 'starting' ? 'stopped' : this.d.ctx.state !== 'running' ? 'needs_click' : null;
    if (problem) {
      for (const t of stream.getTracks()) t.stop();
      // Ended (stopped) while the browser asked for the microphone: nothing more to say.
      return problem === 'needs_click' ? this.end(problem) : undefined;
    }
    this.stream = stream;
    if (!this.d.send({ t: 'voice_start', ...(mode ? { mode } : {}) })) return this.end('socket_closed');
    this.sentStart = true;
    this.timer = window.setTimeout(() => this.end('no_answer'), ANSWER_MS);
  }

  /** The visitor ends voice: silence at once, tell the server how much of the agent was heard, then voice_stop. */
  async stop(): Promise<void> {
    if (this.snap.state === 'ended') return;
    const player = this.player;
    const sent = this.sentStart;
    this.player = null;
    this.end('visitor');
    if (player) {
      const r = await player.stop();
      if (r.item) this.d.send({ t: 'voice_played', itemId: r.item, ms: r.ms });
      player.close();
    }
    if (sent) this.d.send({ t: 'voice_stop' });
  }

  setMuted(muted: boolean) {
    if (this.snap.state !== 'ended') this.set({ muted });
  }

  /** Push-to-talk pressed or released (only in a live push-to-talk session). */
  ptt(down: boolean) {
    const s = this.snap;
    if (s.mode !== 'ptt' || !LIVE.has(s.state) || s.talking === down) return;
    this.set({ talking: down });
    // Pressing talks over the agent: stop what is still playing here (the server may have sent it all already).
    if (down && this.player?.playing) this.interrupt(null);
    this.d.send({ t: 'voice_ptt', down });
  }

  /** A JSON frame from the chat socket: voice, voice_item, voice_interrupt, and message (ends an item's audio). */
  onFrame(f: VoiceServerFrame | MessageFrame) {
    if (!this.sentStart) return;
    if (this.snap.state === 'ended') {
      // Stopped before the server answered voice_start: the session it opens after all is ended at once.
      if (f.t === 'voice' && f.state !== 'ended' && !this.sessionId && this.snap.reason === 'visitor') {
        this.sessionId = f.sessionId;
        this.d.send({ t: 'voice_stop' });
      }
      return;
    }
    switch (f.t) {
      case 'voice': {
        if (this.sessionId && f.sessionId !== this.sessionId) return;
        clearTimeout(this.timer);
        if (f.state === 'ended') return this.end(f.reason || 'engine_error', f.message);
        if (!this.sessionId) this.open(f);
        const was = this.snap.state;
        this.set({ state: f.state, mode: f.mode ?? this.snap.mode });
        // Leaving `speaking`: every frame of the item has arrived (same socket, in order).
        if (was === 'speaking' && f.state !== 'speaking' && this.item) this.player?.end(this.item);
        return;
      }
      case 'voice_item':
        if (this.item) this.player?.end(this.item);
        this.item = f.itemId;
        this.itemMessage = f.messageId;
        return;
      case 'voice_item_done':
        // Every frame of the item has arrived: play what is buffered, then report it played (voice_played).
        if (this.item && this.item === f.itemId) this.player?.end(this.item);
        return;
      case 'voice_interrupt': this.interrupt(f.itemId); return;
      case 'message':
        // The item's stored message comes once it is done, after its audio.
        if (this.item && f.message.id === this.itemMessage) this.player?.end(this.item);
        return;
    }
  }

  /** A binary frame: [0x01, PCM16 LE at outputRate] for the item last announced. */
  onAudio(data: ArrayBuffer) {
    const b = new Uint8Array(data);
    if (!this.player || !this.item || b[0] !== 1 || b.length < 3) return;
    this.player.push(this.item, data.slice(1, 1 + ((b.length - 1) & ~1)));
  }

  /**
   * An error frame; true when it is about voice: the refusal of our voice_start, a refused audio frame
   * (bad_request: during the session, or microphone frames that were on the way when the server ended it),
   * or a voice frame that reached the server after it had ended the session.
   */
  onError(f: ErrorFrame): boolean {
    if (f.clientId || !this.sentStart) return false;
    if (this.snap.state === 'starting' && !this.sessionId) {
      // unavailable: voice is not set up right; the operator has the details, the visitor a line in their language.
      // A limit on sessions at once of this visitor (other tabs) or address has its own line.
      const limited = f.code === 'rate_limited' && (f.limit === 'visitor' || f.limit === 'address') ? `${f.limit}_limit` : null;
      this.end(limited ?? (f.code === 'rate_limited' || f.code === 'unavailable' ? f.code : 'refused'), f.message);
      return true;
    }
    // not_found: a voice_stop or voice_played that crossed the server's end of the session.
    const late = this.snap.state === 'ended' && performance.now() - this.endedAt < LATE_AUDIO_MS;
    if (!(f.code === 'bad_request' && (late || this.snap.state !== 'ended')) && !(f.code === 'not_found' && late)) return false;
    console.warn('ServiceChat voice:', f.message);
    return true;
  }

  /** The chat socket closed: the server has ended the session with it. */
  onClose() {
    if (this.snap.state !== 'ended') this.end('socket_closed');
  }

  private open(f: { sessionId: string; inputRate: number; outputRate: number }) {
    this.sessionId = f.sessionId;
    const ctx = this.d.ctx;
    this.capture = new Capture(ctx, this.stream!, f.inputRate, (pcm) => this.onMic(pcm));
    this.player = new Player(ctx, f.outputRate, {
      state: (playing) => this.set({ playing }),
      level: (l) => this.d.onOutputLevel?.(l),
      done: (item, ms) => this.d.send({ t: 'voice_played', itemId: item, ms }),
    });
  }

  private onMic(pcm: Int16Array) {
    const s = this.snap;
    const open = LIVE.has(s.state) && !s.muted && (s.mode !== 'ptt' || s.talking);
    this.d.onInputLevel?.(open ? levelOf(rmsOf(pcm)) : 0);
    if (!open) return;
    const bytes = new Uint8Array(1 + pcm.byteLength);
    bytes[0] = 1;
    // Int16Array is little-endian on every platform browsers run on.
    bytes.set(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength), 1);
    this.d.sendAudio(bytes);
  }

  /** Stops playback now; `itemId` (the server's, or null when the visitor pressed to talk) gets its voice_played. */
  private async interrupt(itemId: string | null) {
    const player = this.player;
    if (!player) return;
    // Audio still in flight for the cut item is dropped until the next voice_item.
    if (itemId === null || itemId === this.item) this.item = null;
    const r = await player.stop();
    const item = itemId ?? r.item;
    if (!item) return;
    this.d.send({ t: 'voice_played', itemId: item, ms: r.item === item ? r.ms : player.msOf(item) });
  }

  private end(reason: string, message?: string) {
    clearTimeout(this.timer);
    this.endedAt = performance.now();
    this.capture?.close();
    if (!this.capture) for (const t of this.stream?.getTracks() ?? []) t.stop();
    this.player?.close();
    this.capture = this.player = this.stream = null;
    this.item = this.itemMessage = null;
    this.d.onInputLevel?.(0);
    this.d.onOutputLevel?.(0);
    this.set({ state: 'ended', reason, message, talking: false, playing: false });
  }
}
