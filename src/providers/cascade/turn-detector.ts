/**
 * Hands-free turn detection for cascade voice: the visitor's audio (PCM16, 16 kHz) is cut into 32 ms frames, Silero
 * VAD gives each a speech probability, and a small state machine turns those into "the visitor started speaking"
 * and "the visitor's turn is over, here is its audio". A pause shorter than the hangover (800 ms by default) does not
 * end the turn, so a visitor who stops to think mid-sentence is not answered too early (docs/voice.md, Cascade).
 * Adaptive end of turn: a short quiet (`probeMs`) is reported as a pause, and the engine, once it has the words so
 * far, sets how much quiet ends this pause's turn (`endAfter`); speech that resumes is reported and the pause's
 * setting is forgotten.
 */
import { FRAME_SAMPLES, VAD_RATE, VadStream, type SileroVad } from './silero.js';

export interface TurnDetectorOptions {
  /** A frame at or above this probability is speech. */
  positive: number;
  /** Below this a frame counts toward the end of the turn (between the two: neither). */
  negative: number;
  /** Speech this long (frames above `positive`) means the visitor is talking: speech_started, barge-in. */
  startMs: number;
  /** A turn with less speech than this is a noise (a cough, a click) and is dropped. */
  minSpeechMs: number;
  /** This much quiet ends the turn: longer than the pauses people make mid-sentence (unless `endAfter` says otherwise). */
  hangoverMs: number;
  /** This much quiet, after at least minSpeechMs of speech, is a pause (`onPause`): the engine asks for the words so far. 0: none. */
  probeMs: number;
  /** Audio kept from before speech was detected, so the first syllable reaches speech to text. */
  padMs: number;
  /** Quiet kept after the last speech in the turn's audio (the rest of the hangover is cut off). */
  tailMs: number;
  /** Frames quieter than this RMS (-60 dBFS, what noise suppression leaves of silence) skip the model. */
  gateRms: number;
  /** A turn is ended here even while the visitor goes on talking (speech to text takes files of limited length). */
  maxTurnMs: number;
}

export const TURN_DEFAULTS: Readonly<TurnDetectorOptions> = Object.freeze({
  positive: 0.5, negative: 0.35, startMs: 96, minSpeechMs: 200, hangoverMs: 800, probeMs: 160, padMs: 300, tailMs: 160, gateRms: 0.001, maxTurnMs: 60_000,
});

export interface TurnHandlers {
  onSpeechStart(): void;
  /** The turn is over: its audio (PCM16 16 kHz) and how much of it was speech. */
  onTurn(pcm: Buffer, speechMs: number): void;
  onError(err: Error): void;
  /**
   * The turn's audio as it comes, once speech has started (first the audio kept so far, padding included, then each
   * frame): for speech to text that streams. A turn whose speech started but ends as a noise is `onDropped`.
   */
  onTurnAudio?(pcm: Buffer): void;
  onDropped?(): void;
  /** The visitor has been quiet for `probeMs` mid-turn (once a pause). */
  onPause?(): void;
  /** Speech again after a pause was reported: the turn goes on. */
  onResume?(): void;
}

const FRAME_MS = (FRAME_SAMPLES / VAD_RATE) * 1000;
const FRAME_BYTES = FRAME_SAMPLES * 2;

export class TurnDetector {
  private readonly o: TurnDetectorOptions;
  private readonly stream = new VadStream();
  /** Bytes of a frame not yet complete. */
  private partial = Buffer.alloc(0);
  /** Frames wait here for their probability, one at a time per session (the model keeps state across frames). */
  private chain: Promise<void> = Promise.resolve();
  /** Bumped by reset(): answers for frames from before it are ignored. */
  private generation = 0;
  private inTurn = false;
  private started = false;
  private frames: Buffer[] = [];
  private speechFrames = 0;
  private quietFrames = 0;
  /** This pause was reported; the quiet that ends it (null: hangoverMs). */
  private paused = false;
  private endMs: number | null = null;
  /** Frames the gate answered without the model, and frames the model ran on (for the figures). */
  readonly stats = { gated: 0, inferred: 0 };
  /** Audio judged so far, in ms (frames wait for the model, so this trails the audio pushed). */
  judgedMs = 0;

  constructor(private readonly vad: SileroVad, private readonly on: TurnHandlers, opts: Partial<TurnDetectorOptions> = {}) {
    this.o = { ...TURN_DEFAULTS, ...opts };
  }

  /** Visitor audio, any length (the widget sends 20 ms frames). */
  push(pcm: Buffer): void {
    let data = this.partial.length ? Buffer.concat([this.partial, pcm]) : pcm;
    while (data.length >= FRAME_BYTES) {
      this.frame(data.subarray(0, FRAME_BYTES));
      data = data.subarray(FRAME_BYTES);
    }
    this.partial = Buffer.from(data);
  }

  /** The quiet (ms, counted from the end of speech) that ends the turn during the current pause. */
  endAfter(ms: number): void {
    if (this.paused) this.endMs = ms;
  }

  /** Forgets a turn in progress (push-to-talk, the session ending); frames still in the model are ignored. */
  reset(): void {
    this.generation++;
    this.partial = Buffer.alloc(0);
    this.endTurn();
  }

  private frame(bytes: Buffer): void {
    // The frame's bytes are copied: the caller's buffer may be reused.
    const pcm = Buffer.from(bytes);
    const floats = new Float32Array(FRAME_SAMPLES);
    let sq = 0;
    for (let i = 0; i < FRAME_SAMPLES; i++) { const v = pcm.readInt16LE(i * 2) / 32768; floats[i] = v; sq += v * v; }
    const quiet = Math.sqrt(sq / FRAME_SAMPLES) < this.o.gateRms;
    const gen = this.generation;
    this.chain = this.chain.then(async () => {
      if (gen !== this.generation) return;
      let p = 0;
      if (quiet) {
        this.stats.gated++;
        // The model's context window moves on with the (silent) audio; its state waits for the next sound.
        this.stream.context.fill(0);
      } else {
        this.stats.inferred++;
        p = await this.vad.probability(this.stream, floats);
      }
      if (gen !== this.generation) return;
      this.judgedMs += FRAME_MS;
      this.decide(p, pcm);
    }).catch((err) => { if (gen === this.generation) this.on.onError(err as Error); });
  }

  private decide(p: number, pcm: Buffer): void {
    const o = this.o;
    this.frames.push(pcm);
    if (!this.inTurn) {
      if (p >= o.positive) {
        this.inTurn = true;
        this.speechFrames = 1;
        this.quietFrames = 0;
      } else {
        // Before speech, only the padding is kept.
        const keep = Math.ceil(o.padMs / FRAME_MS) + 1;
        if (this.frames.length > keep) this.frames.splice(0, this.frames.length - keep);
        return;
      }
    } else if (p >= o.positive) {
      this.speechFrames++;
      this.quietFrames = 0;
      if (this.paused) {
        this.paused = false;
        this.endMs = null;
        this.on.onResume?.();
      }
    } else if (p < o.negative) {
      this.quietFrames++;
    }
    const wasStarted = this.started;
    if (!this.started && this.speechFrames * FRAME_MS >= o.startMs) {
      this.started = true;
      this.on.onSpeechStart();
    }
    if (this.started && this.on.onTurnAudio) {
      if (wasStarted) this.on.onTurnAudio(pcm);
      else for (const f of this.frames) this.on.onTurnAudio(f);
    }
    const quietMs = this.quietFrames * FRAME_MS;
    const turnMs = this.frames.length * FRAME_MS;
    if (this.started && o.probeMs > 0 && !this.paused && quietMs >= o.probeMs && this.speechFrames * FRAME_MS >= o.minSpeechMs) {
      this.paused = true;
      this.on.onPause?.();
    }
    if (quietMs < (this.endMs ?? o.hangoverMs) && turnMs < o.maxTurnMs) return;
    const speechMs = this.speechFrames * FRAME_MS;
    // The hangover's quiet is cut off but for a short tail.
    const cut = Math.max(0, this.quietFrames - Math.ceil(o.tailMs / FRAME_MS));
    const audio = Buffer.concat(this.frames.slice(0, this.frames.length - cut));
    const real = this.started && speechMs >= o.minSpeechMs;
    this.endTurn();
    if (real) this.on.onTurn(audio, speechMs);
    else if (wasStarted) this.on.onDropped?.();
  }

  private endTurn(): void {
    this.inTurn = false;
    this.started = false;
    this.frames = [];
    this.speechFrames = 0;
    this.quietFrames = 0;
    this.paused = false;
    this.endMs = null;
  }
}
