/**
 * Streaming speech to text, the port the cascade engine uses for it: a turn's audio is sent as the visitor speaks and
 * its words are asked for at each pause (a commit) and once the turn ends. Kind D streams over the speech provider's realtime endpoint
 * (speech-realtime-stt.ts), kind B over OpenAI's Realtime API in transcription mode (openai-realtime-stt.ts); models
 * that cannot stream are sent the finished turn in one upload (`transcribe`).
 */
export interface TranscriptStream {
  /** PCM16 mono at 16 kHz, any length; queued until the socket is open. */
  send(pcm: Buffer): void;
  /**
   * Commits what was sent since the last commit as one segment and resolves with its words (the stream stays open
   * for the next segment: a visitor's pause asks for the words so far); rejects if the provider fails, closes or
   * `signal` aborts. A rejection with `uploadInstead` set means the stream broke (refused, dropped) and the segment
   * can still be transcribed in one upload with the same model.
   */
  commit(signal?: AbortSignal): Promise<string>;
  /** Ends the stream (the turn is over, dropped as a noise, or the session ended): the socket closes. */
  close(): void;
}

export interface TranscriptionOptions { model: string; language?: string; allowPrivateNetwork: boolean }

export interface StreamingStt {
  /** Whether this model is served by the provider's streaming transcription. */
  streamsTranscription(model: string): boolean;
  openTranscription(o: TranscriptionOptions): TranscriptStream;
}

/** Whether this adapter and model stream a turn's audio (else the finished turn is uploaded). */
export function streamsSpeech<T extends object>(adapter: T, model: string): adapter is T & StreamingStt {
  const s = adapter as Partial<StreamingStt>;
  return typeof s.openTranscription === 'function' && typeof s.streamsTranscription === 'function' && s.streamsTranscription(model);
}

/** A broken stream whose turn can still be uploaded whole. */
export function uploadInstead(message: string): Error & { uploadInstead: true } {
  return Object.assign(new Error(message), { uploadInstead: true as const });
}

/**
 * A stream's segments, in the order they were committed: each resolves with its words once the provider sends them,
 * or rejects when the stream fails (every segment still waiting, and every later one).
 */
export class Segments {
  failure: Error | null = null;
  private readonly waiting: Array<{ id: string | null; resolve(text: string): void; reject(err: Error): void }> = [];

  /** A segment was committed: its words come later (`done`), matched by the provider's id or in order. */
  add(signal: AbortSignal | undefined, onAbort: () => void): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      if (signal?.aborted) { reject(signal.reason as Error); onAbort(); return; }
      const abort = () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason as Error);
        onAbort();
      };
      const off = () => signal?.removeEventListener('abort', abort);
      const w = { id: null as string | null, resolve: (t: string) => { off(); resolve(t); }, reject: (e: Error) => { off(); reject(e); } };
      signal?.addEventListener('abort', abort, { once: true });
      this.waiting.push(w);
    });
  }

  get pending(): number {
    return this.waiting.length;
  }

  /** The provider named the oldest segment not yet named (OpenAI's committed item id). */
  name(id: string): void {
    const w = this.waiting.find((x) => x.id === null);
    if (w) w.id = id;
  }

  /** A segment's words: the one named `id`, else the oldest. */
  done(text: string, id?: string): void {
    const i = id === undefined ? 0 : this.waiting.findIndex((x) => x.id === id);
    if (i < 0 || !this.waiting.length) return;
    this.waiting.splice(i, 1)[0].resolve(text);
  }

  /** One segment failed (the provider heard it and could not transcribe it). */
  failOne(err: Error, id: string): void {
    const i = this.waiting.findIndex((x) => x.id === id);
    if (i >= 0) this.waiting.splice(i, 1)[0].reject(err);
  }

  /** The stream failed: segments waiting and to come reject with `err` (the first failure counts). */
  fail(err: Error): void {
    if (!this.failure) this.failure = err;
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }
}
