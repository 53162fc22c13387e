/**
 * The words of one visitor turn in cascade voice, segment by segment: its audio goes to speech to text as it is
 * heard (streamed where the model streams, else kept for an upload), and the words are asked for at each pause the
 * turn detector hears (a commit of what came since the last) and at the end. The words so far judge the end of the
 * turn (end-of-turn.ts); the turn's words are all its segments' in order. A broken stream costs nothing: each segment's
 * audio is kept, so it is uploaded instead.
 */
import { pcmToWav } from '../wav.js';
import { streamsSpeech, type TranscriptStream } from '../stt-stream.js';
import type { CascadeParts } from './parts.js';
import { VAD_RATE } from './silero.js';

/** A segment's or the turn's words; with `err` the words could not be had (the text is then empty). */
export interface Heard { text: string; err: Error | null }

export interface UtteranceOptions {
  allowPrivateNetwork: boolean;
  /** Time limit of each segment's transcription. */
  sttMs: number;
  /** The stream broke and its audio is uploaded instead (told once a turn). */
  streamBroke(message: string): void;
  /** Seconds of audio sent to be transcribed (for the cost estimate). */
  heardSeconds(seconds: number): void;
}

export class Utterance {
  /** Pauses are read for the end of the turn (the old fixed rule: false, the words are asked for once, at the end). */
  readonly adaptive: boolean;
  /** Speech since the last commit (a turn begins with speech). */
  spoke = true;
  /** Bumped when the visitor speaks again after a pause: words of an earlier pause are stale. */
  pauses = 0;
  private chunks: Buffer[] = [];
  private bytes = 0;
  private committed = 0;
  private readonly segments: Array<Promise<Heard>> = [];
  private readonly live: TranscriptStream | null;
  private readonly controller = new AbortController();
  private broke = false;

  constructor(private readonly stt: CascadeParts['stt'], private readonly o: UtteranceOptions, adaptive: boolean) {
    this.adaptive = adaptive;
    this.live = streamsSpeech(stt.adapter, stt.model)
      ? stt.adapter.openTranscription({ model: stt.model, language: stt.language ?? undefined, allowPrivateNetwork: o.allowPrivateNetwork })
      : null;
  }

  /** Audio bytes heard so far. */
  get length(): number {
    return this.bytes;
  }

  audio(pcm: Buffer): void {
    this.chunks.push(pcm);
    this.bytes += pcm.length;
    this.live?.send(pcm);
  }

  /** A pause: what came since the last commit is transcribed; resolves with the words so far. */
  commit(): Promise<Heard> {
    this.segment(this.bytes);
    return this.words();
  }

  /**
   * The turn is over (its audio is the first `turnBytes`, the quiet after it cut): the last segment is transcribed if
   * the visitor spoke since the last commit; resolves with the turn's words, and the stream closes.
   */
  finish(turnBytes: number): Promise<Heard> {
    if ((this.spoke || !this.segments.length) && Math.min(turnBytes, this.bytes) > this.committed) this.segment(Math.min(turnBytes, this.bytes));
    const words = this.words();
    void words.then(() => this.live?.close());
    return words;
  }

  /** Stops everything under way (the turn was dropped or the session ended). */
  close(): void {
    this.controller.abort(new Error('closed'));
    this.live?.close();
  }

  private words(): Promise<Heard> {
    return Promise.all(this.segments).then((all) => {
      const failed = all.find((h) => h.err);
      return failed ? { text: '', err: failed.err } : { text: all.map((h) => h.text).filter(Boolean).join(' '), err: null };
    });
  }

  private segment(upTo: number): void {
    const from = this.committed;
    this.committed = upTo;
    this.spoke = false;
    this.o.heardSeconds((upTo - from) / 2 / VAD_RATE);
    const timeout = new Error(`no transcript within ${Math.round(this.o.sttMs / 1000)} s`);
    const own = new AbortController();
    const timer = setTimeout(() => own.abort(timeout), this.o.sttMs);
    const signal = AbortSignal.any([this.controller.signal, own.signal]);
    const { stt } = this;
    const upload = () => {
      let audio = Buffer.concat(this.chunks);
      this.chunks = [audio];
      audio = audio.subarray(from, upTo);
      return stt.adapter.transcribe!(pcmToWav(audio, VAD_RATE), { mimeType: 'audio/wav', model: stt.model, language: stt.language ?? undefined, signal });
    };
    const words = this.live
      ? this.live.commit(signal).catch((err: Error & { uploadInstead?: boolean }) => {
        // A stream that broke (refused, dropped) costs the visitor nothing: the segment's audio is here, so it is uploaded.
        if (!err.uploadInstead || signal.aborted) throw err;
        if (!this.broke) { this.broke = true; this.o.streamBroke(err.message); }
        return upload();
      })
      : upload();
    this.segments.push(words.then(
      (text) => ({ text: text.trim(), err: null }),
      (err: Error) => ({ text: '', err: own.signal.reason === timeout ? timeout : err }),
    ).finally(() => clearTimeout(timer)));
  }
}
