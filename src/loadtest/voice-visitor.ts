/**
 * A simulated visitor who talks (docs/widget-protocol.md, Voice): after `ready` it sends voice_start, keeps its
 * microphone on (one 20 ms PCM frame every 20 ms, as the widget does), says something for `speechMs` each turn
 * (a tone the simulated engine hears as speech; quiet otherwise), receives the agent's audio and reports each item
 * played (voice_played) when the session leaves `speaking`, as the widget's player does (the audio came in real
 * time, so it has been played by then; the server stores the agent's turn on that report), thinks, and speaks again; voice_stop at the end. The time from
 * its last frame of speech to the first frame of the agent's audio is the voice figure (it includes the engine's
 * end-of-turn quiet, which the simulated engine makes fixed).
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { BYTES_PER_MS, FRAME_MS, toneFrame } from './voice-wire.js';
import { VoiceSocket, type Frame } from './voice-socket.js';

export interface VoiceResults {
  /** Visitors who talk (planned). */
  visitors: number;
  started: number;
  /** voice_start answered with an error, by code (rate_limited: a cap, security.caps.*). */
  refused: Record<string, number>;
  turnsDone: number;
  /** Last frame of speech sent -> first frame of the agent's audio received, per spoken turn (ms). */
  firstAudioMs: number[];
  /** Last frame of the agent's audio received -> its stored message (the end of the turn for the widget), ms. */
  storedMs: number[];
  framesSent: number;
  framesReceived: number;
  bytesReceived: number;
  /** Problems during voice sessions, by kind. */
  errors: Record<string, number>;
}

export const emptyVoiceResults = (visitors: number): VoiceResults => ({ visitors, started: 0, refused: {}, turnsDone: 0, firstAudioMs: [], storedMs: [], framesSent: 0, framesReceived: 0, bytesReceived: 0, errors: {} });

/** What a visitor needs from the run it belongs to (src/loadtest/visitors.ts). */
export interface VisitorRun {
  turns: number;
  thinkMs: number;
  turnTimeoutMs: number;
  speechMs: number;
  stopping(): boolean;
  /** Resolves when the run's time limit is reached. */
  stopped: Promise<void>;
  sleep(ms: number): Promise<void>;
  voiceOpen(delta: 1 | -1): void;
  firstAudio(ms: number): void;
  stored(ms: number): void;
}

const SPEECH = toneFrame(1);
const QUIET = Buffer.alloc(SPEECH.length);
SPEECH[0] = QUIET[0] = 0x01;

export class VoiceVisitor {
  private readonly socket: VoiceSocket;
  private live = false;
  private speaking = false;
  private lastSpeechAt = 0;
  private awaitingAudio = false;
  private current: { itemId: string; messageId: string; bytes: number; reported: boolean; lastAudioAt: number } | null = null;
  private state = '';
  private mic: NodeJS.Timeout | null = null;

  constructor(private readonly ws: WebSocket, private readonly run: VisitorRun, private readonly v: VoiceResults) {
    this.socket = new VoiceSocket(ws, run.stopped);
  }

  private error(kind: string): void { this.v.errors[kind] = (this.v.errors[kind] ?? 0) + 1; }

  /** Every frame the socket receives (attached before it opens, so the first ones are not missed). */
  onMessage(data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      if (!this.live) return;
      this.v.framesReceived++;
      this.v.bytesReceived += data.length - 1;
      if (this.current) { this.current.bytes += data.length - 1; this.current.lastAudioAt = performance.now(); }
      if (this.awaitingAudio) { this.awaitingAudio = false; this.run.firstAudio(performance.now() - this.lastSpeechAt); }
      return;
    }
    let f: Frame;
    try { f = JSON.parse(String(data)); } catch { return this.error('bad frame'); }
    if (f.t === 'voice_item' && f.itemId) {
      this.played();
      this.current = { itemId: f.itemId, messageId: f.messageId ?? '', bytes: 0, reported: false, lastAudioAt: 0 };
    } else if (f.t === 'message' && this.current && f.message?.id === this.current.messageId) {
      // The item's stored message comes once it is done, after its audio (the widget ends playback on it).
      if (this.current.lastAudioAt) this.run.stored(performance.now() - this.current.lastAudioAt);
      this.played();
    } else if (f.t === 'error' && this.live) this.error(`voice error ${f.code ?? 'frame'}`);
    else if (f.t === 'voice' && f.state === 'ended' && this.live) {
      this.live = false;
      if (f.reason !== 'visitor') this.error(`voice ended ${f.reason}`);
    } else if (f.t === 'voice' && f.state) {
      // Leaving `speaking`: every frame of the item has arrived (same socket, in order).
      if (this.state === 'speaking' && f.state !== 'speaking') this.played();
      this.state = f.state;
    }
    this.socket.dispatch(f);
  }

  /** voice_played for the current item, once: all its audio has arrived (and, in real time, been heard). */
  private played(): void {
    const item = this.current;
    if (!item || item.reported || !this.live) return;
    item.reported = true;
    this.ws.send(JSON.stringify({ t: 'voice_played', itemId: item.itemId, ms: Math.round(item.bytes / BYTES_PER_MS) }));
  }

  /** One 20 ms frame every 20 ms on a schedule that does not drift: speech while `speaking`, quiet otherwise. */
  private startMic(): void {
    const t0 = performance.now();
    let k = 0;
    const tick = () => {
      if (this.ws.readyState !== WebSocket.OPEN || !this.live) { this.mic = null; return; }
      this.ws.send(this.speaking ? SPEECH : QUIET);
      if (this.speaking) this.lastSpeechAt = performance.now();
      this.v.framesSent++;
      k++;
      this.mic = setTimeout(tick, Math.max(0, t0 + k * FRAME_MS - performance.now()));
    };
    tick();
  }

  private stopMic(): void { if (this.mic) clearTimeout(this.mic); this.mic = null; }

  async talk(): Promise<void> {
    const f = await this.socket.startVoice(20_000);
    if (!f) { if (!this.run.stopping()) this.error('voice start timeout'); return; }
    if (f.t === 'error') { this.v.refused[f.code ?? 'error'] = (this.v.refused[f.code ?? 'error'] ?? 0) + 1; return; }
    if (f.state !== 'listening') { this.error(`voice ended ${f.reason}`); return; }
    this.v.started++;
    this.live = true;
    this.run.voiceOpen(1);
    this.startMic();
    try {
      for (let t = 0; t < this.run.turns && this.live && !this.run.stopping(); t++) {
        if (t > 0 && this.run.thinkMs) await this.run.sleep(Math.random() * 2 * this.run.thinkMs);
        if (!this.live || this.run.stopping()) break;
        const reply = this.socket.next((x) => x.t === 'message' && x.message?.role === 'assistant' && x.message?.modality === 'voice', this.run.turnTimeoutMs);
        this.speaking = true;
        await this.run.sleep(this.run.speechMs);
        this.speaking = false;
        this.awaitingAudio = true;
        const got = await reply;
        this.awaitingAudio = false;
        if (got) this.v.turnsDone++;
        else if (!this.run.stopping() && this.live) { this.error('voice reply timeout'); break; }
      }
    } finally {
      this.stopMic();
      this.run.voiceOpen(-1);
      if (this.live && this.ws.readyState === WebSocket.OPEN) {
        if (!(await this.socket.stopVoice(5000)) && !this.run.stopping()) this.error('voice stop timeout');
      }
      this.live = false;
    }
  }
}
