/**
 * Streaming speech to text, the port the cascade engine uses for it: a turn's audio is sent as the visitor speaks and
 * only the final words are awaited once the turn ends. Kind D streams over the speech provider's realtime endpoint
 * (speech-realtime-stt.ts), kind B over OpenAI's Realtime API in transcription mode (openai-realtime-stt.ts); models
 * that cannot stream are sent the finished turn in one upload (`transcribe`).
 */
export interface TranscriptStream {
  /** PCM16 mono at 16 kHz, any length; queued until the socket is open. */
  send(pcm: Buffer): void;
  /**
   * Commits what was sent and resolves with its words; rejects if the provider fails, closes or `signal` aborts.
   * A rejection with `uploadInstead` set means the stream broke (refused, dropped) and the finished turn can still
   * be transcribed in one upload with the same model.
   */
  finish(signal?: AbortSignal): Promise<string>;
  /** Drops the turn (the visitor's speech was a noise, the session ended): the socket closes. */
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

/** A streamed turn's words, once the provider sends them or the stream fails: what `finish()` waits on. */
export class TurnWords {
  failure: Error | null = null;
  words: string | null = null;
  private readonly waiting: Array<{ resolve(text: string): void; reject(err: Error): void }> = [];

  get settled(): boolean {
    return this.failure !== null || this.words !== null;
  }

  /** The first outcome counts; returns whether this one did. */
  fail(err: Error): boolean {
    if (this.settled) return false;
    this.failure = err;
    this.settle();
    return true;
  }

  done(text: string): void {
    if (this.settled) return;
    this.words = text;
    this.settle();
  }

  /** Resolves with the words, rejects with the failure, or with `signal`'s reason (then `onAbort` runs). */
  wait(signal: AbortSignal | undefined, onAbort: () => void): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const abort = () => { reject(signal!.reason as Error); onAbort(); };
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      const off = () => signal?.removeEventListener('abort', abort);
      this.waiting.push({ resolve: (t) => { off(); resolve(t); }, reject: (e) => { off(); reject(e); } });
      this.settle();
    });
  }

  private settle(): void {
    if (!this.settled) return;
    for (const w of this.waiting.splice(0)) { if (this.failure) w.reject(this.failure); else w.resolve(this.words!); }
  }
}
