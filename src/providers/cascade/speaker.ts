/**
 * The text-to-speech stage of cascade voice: an ordered queue of sentences (grouped in agent items) whose audio
 * is streamed out as the provider makes it. The next sentence is synthesised while the current one plays out, so
 * there is no gap between them, but audio always leaves in order. When synthesis fails the rest of the reply goes
 * on as text only (captions and the stored transcript keep every word), and the failure is reported once.
 */
import { SPEECH_STREAM_RATE, type ProviderAdapter, type SynthesizeOptions } from '../types.js';

export interface SpeakerOutput {
  /** The first sentence of a new item is about to be heard (announce the item). */
  itemStart(itemId: string): void;
  /** Words of the item as their audio goes out (captions keep pace with the voice; the stored transcript too). */
  words(itemId: string, delta: string): void;
  audio(itemId: string, pcm: Buffer): void;
  /** The item is complete: the words of all its sentences. */
  itemDone(itemId: string, text: string): void;
  /** Synthesis failed (reported once a response); what follows is text only. */
  failed(err: Error): void;
  /** A sentence was synthesised: characters sent and seconds of audio received (for the cost estimate). */
  synthesized(characters: number, seconds: number): void;
}

/** A sentence as spoken: its words, the bytes of audio sent for it, and whether that was all of its audio (not cut off). */
export interface SpokenPiece { text: string; bytes: number; complete: boolean }

type Piece = {
  kind: 'piece'; itemId: string; text: string; chunks: Buffer[]; bytes: number;
  started: boolean; finished: boolean; shown: boolean; error: Error | null; controller: AbortController | null;
  /** Characters of the text handed out as words so far; whether it is the item's first sentence. */
  released: number; first: boolean;
  /** The sentence before it in the same item (kind D carries the intonation on from it). */
  previous: string | undefined;
};
type Entry = Piece | { kind: 'end'; itemId: string } | { kind: 'then'; fn: () => void };

/** Sentences synthesised ahead of the one playing: enough to hide each request's start-up time. */
const LOOKAHEAD = 2;
const BYTES_PER_SECOND = SPEECH_STREAM_RATE * 2;
/** Speaking pace assumed until sentences of this session have been measured (about 15 characters a second). */
const DEFAULT_MS_PER_CHAR = 65;

export class Speaker {
  private queue: Entry[] = [];
  private readonly items = new Map<string, { announced: boolean; pieces: SpokenPiece[] }>();
  private failure: Error | null = null;
  /** pump() is running (an output callback may queue more): a nested call only asks for another pass. */
  private pumping = false;
  private again = false;
  private lastSaid: { itemId: string; text: string } | null = null;
  /** Audio bytes and characters of the sentences spoken in full: the voice's pace, for captions. */
  private readonly pace = { bytes: 0, chars: 0 };

  constructor(
    private readonly tts: { adapter: ProviderAdapter; label: string; opts: SynthesizeOptions },
    private readonly out: SpeakerOutput,
    private readonly timeoutMs: number,
  ) {}

  /** The voice to speak in (set once the provider's default voice is known). */
  set voice(voice: string) {
    this.tts.opts.voice = voice;
  }

  say(itemId: string, text: string): void {
    const before = this.lastSaid?.itemId === itemId ? this.lastSaid.text : undefined;
    this.lastSaid = { itemId, text };
    this.queue.push({ kind: 'piece', itemId, text, chunks: [], bytes: 0, started: false, finished: false, shown: false, error: null, controller: null, released: 0, first: false, previous: before });
    this.pump();
  }

  /** No more sentences for this item. */
  endItem(itemId: string): void {
    this.queue.push({ kind: 'end', itemId });
    this.pump();
  }

  /** Calls `fn` once everything queued before it has been sent. */
  then(fn: () => void): void {
    this.queue.push({ kind: 'then', fn });
    this.pump();
  }

  /** What was sent of an item so far, sentence by sentence (empty when nothing was). */
  spoken(itemId: string): SpokenPiece[] {
    return this.items.get(itemId)?.pieces ?? [];
  }

  /** Stops everything: synthesis in flight is aborted, nothing queued is sent (callbacks queued are dropped too). */
  cancel(): void {
    const queue = this.queue;
    this.queue = [];
    for (const e of queue) if (e.kind === 'piece') e.controller?.abort(new Error('cancelled'));
  }

  /** A new response: synthesis may be tried again. */
  reset(): void {
    this.failure = null;
  }

  private pump(): void {
    if (this.pumping) { this.again = true; return; }
    this.pumping = true;
    try {
      do { this.again = false; this.step(); } while (this.again);
    } finally {
      this.pumping = false;
    }
  }

  private step(): void {
    let ahead = 0;
    for (const e of this.queue) {
      if (e.kind !== 'piece' || e.finished) continue;
      if (ahead++ >= LOOKAHEAD) break;
      if (!e.started) void this.synthesize(e);
    }
    while (this.queue.length) {
      const head = this.queue[0];
      if (head.kind === 'then') { this.queue.shift(); head.fn(); continue; }
      if (head.kind === 'end') {
        this.queue.shift();
        const item = this.items.get(head.itemId);
        if (item?.announced) this.out.itemDone(head.itemId, item.pieces.map((p) => p.text).join(' '));
        continue;
      }
      if (head.error && !this.failure) { this.failure = head.error; this.out.failed(head.error); }
      if (this.failure) {
        // After a failure the rest of the reply is text only, even sentences whose speech was already coming.
        head.controller?.abort(this.failure);
        if (!head.shown) this.show(head);
        this.release(head, head.text.length);
        this.complete(head);
        continue;
      }
      if (!head.shown && (head.chunks.length || head.finished)) this.show(head);
      if (head.chunks.length) {
        const spoken = this.items.get(head.itemId)!.pieces.at(-1)!;
        const perChar = this.pace.chars ? this.pace.bytes / this.pace.chars : (DEFAULT_MS_PER_CHAR * BYTES_PER_SECOND) / 1000;
        for (const pcm of head.chunks) {
          spoken.bytes += pcm.length;
          // The words this chunk says go just before it.
          this.release(head, Math.ceil(spoken.bytes / perChar));
          this.out.audio(head.itemId, pcm);
        }
        head.chunks = [];
      }
      if (!head.finished) return;
      this.release(head, head.text.length);
      if (!head.error && head.bytes > 0) { this.pace.bytes += head.bytes; this.pace.chars += head.text.length; }
      this.complete(head);
    }
  }

  /** All its audio went out (a sentence whose speech failed has what came, or none: it was shown as text). */
  private complete(p: Piece): void {
    this.items.get(p.itemId)!.pieces.at(-1)!.complete = true;
    this.queue.shift();
  }

  /** The sentence starts: its item is announced before its first audio (or its words alone, when there is none). */
  private show(p: Piece): void {
    p.shown = true;
    let item = this.items.get(p.itemId);
    if (!item) { item = { announced: false, pieces: [] }; this.items.set(p.itemId, item); }
    if (!item.announced) { item.announced = true; this.out.itemStart(p.itemId); }
    p.first = item.pieces.length === 0;
    item.pieces.push({ text: p.text, bytes: 0, complete: false });
  }

  /** Hands out the sentence's words up to character `upTo`, to the end of the word it falls in. */
  private release(p: Piece, upTo: number): void {
    let end = Math.min(p.text.length, upTo);
    if (end < p.text.length) { const space = p.text.indexOf(' ', end); end = space < 0 ? p.text.length : space; }
    if (end <= p.released) return;
    const delta = p.text.slice(p.released, end);
    this.out.words(p.itemId, p.released === 0 && !p.first ? ` ${delta}` : delta);
    p.released = end;
  }

  private async synthesize(p: Piece): Promise<void> {
    p.started = true;
    // After a failure the rest of the reply is text only: no more requests to a provider that is failing.
    if (this.failure || !this.tts.adapter.synthesizeStream) {
      p.error = this.failure ?? new Error(`${this.tts.label} cannot stream speech`);
      p.finished = true;
      return;
    }
    const controller = new AbortController();
    p.controller = controller;
    const timeout = new Error(`${this.tts.label} sent no audio for ${Math.round(this.timeoutMs / 1000)} s`);
    let timer = setTimeout(() => controller.abort(timeout), this.timeoutMs);
    try {
      const opts = p.previous ? { ...this.tts.opts, previousText: p.previous } : this.tts.opts;
      for await (const pcm of this.tts.adapter.synthesizeStream(p.text, opts, controller.signal)) {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(timeout), this.timeoutMs);
        p.chunks.push(pcm);
        p.bytes += pcm.length;
        this.pump();
      }
      if (p.bytes === 0) p.error = new Error(`${this.tts.label} returned no audio`);
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason !== timeout) return;
      p.error = controller.signal.reason === timeout ? timeout : (err as Error);
    } finally {
      clearTimeout(timer);
      this.out.synthesized(p.text.length, p.bytes / BYTES_PER_SECOND);
    }
    p.finished = true;
    this.pump();
  }
}
