/**
 * Streaming speech for the fakes (kinds B, C and D): text to speech answered with real PCM16 at 24 kHz (a quiet
 * tone as long as the text would take to say), sent in 100 ms chunks a few real milliseconds apart so a test can
 * speak over it; speech to text that hears what the test says it hears (the words inside the fakes' own audio
 * otherwise). Each fake has one `speech` control; its requests are recorded as usual.
 */
import type { ServerResponse } from 'node:http';
import { transcriptOf } from './audio.js';

export const SPEECH_RATE = 24_000;

export interface FakeSpeechControl {
  /** What speech to text hears in the next transcriptions of audio that is not the fakes' own, in order. */
  hear(...texts: string[]): void;
  /** Milliseconds of speech per character of text (default 40). */
  msPerChar: number;
  /** Real milliseconds between 100 ms chunks of streamed speech (default 5); raise it to speak over the agent. */
  chunkIntervalMs: number;
  /**
   * The next request whose path contains `pathPart` misbehaves: `hang` never answers, `stall` sends the start of
   * its answer and then nothing, `empty` answers 200 with nothing in it.
   */
  misbehaveNext(pathPart: string, how: 'hang' | 'stall' | 'empty'): void;
  /** Speech streams open now (a cancelled synthesis closes its stream). */
  readonly open: number;
  /** Forgets scripted words and misbehaviour not used yet (a test that failed early leaves some). */
  reset(): void;
}

export interface SpeechMount {
  control: FakeSpeechControl;
  /** What the next transcription hears (the scripted words, else the words in fake audio). */
  heard(audio: Buffer): string;
  /** The misbehaviour scripted for this path, taken once. */
  take(path: string): 'hang' | 'stall' | 'empty' | null;
  /** Streams `ms` of speech as chunks made by `encode` (raw PCM, an SSE event, a JSON line...). */
  stream(res: ServerResponse, ms: number, headers: Record<string, string>, encode: (pcm: Buffer, offsetMs: number, last: boolean) => string | Buffer, how: 'stall' | null): Promise<void>;
  /** Answers nothing until the client gives up. */
  hang(res: ServerResponse): Promise<void>;
}

const CHUNK_MS = 100;

/** `ms` of a quiet 220 Hz tone, PCM16 LE at 24 kHz; `from` keeps the phase across chunks. */
export function speechTone(ms: number, from = 0): Buffer {
  const n = Math.round((ms / 1000) * SPEECH_RATE);
  const out = Buffer.alloc(n * 2);
  const start = Math.round((from / 1000) * SPEECH_RATE);
  for (let i = 0; i < n; i++) out.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 220 * (start + i)) / SPEECH_RATE)), i * 2);
  return out;
}

export function mountSpeech(): SpeechMount {
  const heardQueue: string[] = [];
  const misbehaving: Array<{ pathPart: string; how: 'hang' | 'stall' | 'empty' }> = [];
  let open = 0;
  const control: FakeSpeechControl = {
    hear: (...texts) => { heardQueue.push(...texts); },
    msPerChar: 40,
    chunkIntervalMs: 5,
    misbehaveNext: (pathPart, how) => { misbehaving.push({ pathPart, how }); },
    get open() { return open; },
    reset: () => { heardQueue.length = 0; misbehaving.length = 0; control.msPerChar = 40; control.chunkIntervalMs = 5; },
  };
  const untilClosed = (res: ServerResponse, ms: number) => new Promise<boolean>((resolve) => {
    if (res.destroyed) return resolve(false);
    const t = setTimeout(() => { res.off('close', closed); resolve(true); }, ms);
    const closed = () => { clearTimeout(t); resolve(false); };
    res.once('close', closed);
  });
  return {
    control,
    heard: (audio) => heardQueue.shift() ?? transcriptOf(audio),
    take: (path) => {
      const i = misbehaving.findIndex((m) => path.includes(m.pathPart));
      return i < 0 ? null : misbehaving.splice(i, 1)[0].how;
    },
    async stream(res, ms, headers, encode, how) {
      open++;
      try {
        res.writeHead(200, headers);
        for (let at = 0; at < ms; at += CHUNK_MS) {
          const len = Math.min(CHUNK_MS, ms - at);
          if (!res.write(encode(speechTone(len, at), at, at + len >= ms))) await new Promise((r) => res.once('drain', r));
          if (how === 'stall') { await untilClosed(res, 60_000); return; }
          if (!(await untilClosed(res, control.chunkIntervalMs))) return;
        }
        res.end();
      } finally {
        open--;
      }
    },
    async hang(res) {
      await untilClosed(res, 60_000);
      if (!res.destroyed) res.destroy();
    },
  };
}

/** How long the fakes take to say `text`. */
export function speechMs(text: string, msPerChar: number): number {
  return Math.max(CHUNK_MS, Math.round(text.length * msPerChar));
}
