/**
 * Audio for the fake realtime endpoints: an energy-based turn detector over appended PCM16 (what server VAD
 * does, counted in audio time so tests need no sleeps) and a quiet tone as the agent's voice. Tests use
 * `speechPcm` and `silencePcm` to make visitor audio the detector hears as speech and as a pause.
 */

/** PCM16 mono at this rate, both ways (OpenAI Realtime's only rate). */
export const FAKE_RATE = 24_000;
/** A 20 ms window louder than this (RMS of PCM16 samples) counts as speech. */
export const SPEECH_RMS = 500;
/** This much audio below the threshold ends the visitor's turn. */
export const SILENCE_END_MS = 400;

export const pcmMs = (bytes: number, rate = FAKE_RATE) => (bytes / 2 / rate) * 1000;

/** `ms` of a loud 300 Hz tone: speech as far as the detector can tell. */
export function speechPcm(ms: number, rate = FAKE_RATE): Buffer {
  return tone(ms, 300, 8000, rate);
}

export function silencePcm(ms: number, rate = FAKE_RATE): Buffer {
  return Buffer.alloc(Math.round((ms / 1000) * rate) * 2);
}

/** A sine tone, PCM16 LE; `startSample` keeps the phase across consecutive chunks. */
export function tone(ms: number, hz: number, amplitude: number, rate = FAKE_RATE, startSample = 0): Buffer {
  const n = Math.round((ms / 1000) * rate);
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * (startSample + i)) / rate)), i * 2);
  return out;
}

export type VadEvent = { type: 'start'; atMs: number } | { type: 'stop'; atMs: number; speechMs: number };

/** Finds where speech starts and stops in a stream of PCM16 chunks at `rate`, by 20 ms windows of RMS energy. */
export class EnergyVad {
  private readonly windowSamples: number;
  private sumSquares = 0;
  private samples = 0;
  private totalSamples = 0;
  private speaking = false;
  private startMs = 0;
  private silentMs = 0;

  constructor(private readonly rate = FAKE_RATE) {
    this.windowSamples = rate / 50;
  }

  get inSpeech(): boolean {
    return this.speaking;
  }

  /** Audio time since the session began. */
  get audioMs(): number {
    return (this.totalSamples / this.rate) * 1000;
  }

  /** Feeds a chunk; returns the starts and stops it contained, in order. */
  feed(pcm: Buffer): VadEvent[] {
    const out: VadEvent[] = [];
    for (let off = 0; off + 1 < pcm.length; off += 2) {
      const s = pcm.readInt16LE(off);
      this.sumSquares += s * s;
      this.samples++;
      this.totalSamples++;
      if (this.samples < this.windowSamples) continue;
      const loud = Math.sqrt(this.sumSquares / this.samples) > SPEECH_RMS;
      this.sumSquares = 0;
      this.samples = 0;
      const nowMs = this.audioMs;
      if (loud) {
        this.silentMs = 0;
        if (!this.speaking) {
          this.speaking = true;
          this.startMs = nowMs - 20;
          out.push({ type: 'start', atMs: this.startMs });
        }
      } else if (this.speaking) {
        this.silentMs += 20;
        if (this.silentMs >= SILENCE_END_MS) {
          this.speaking = false;
          out.push({ type: 'stop', atMs: nowMs, speechMs: nowMs - this.silentMs - this.startMs });
        }
      }
    }
    return out;
  }

  /** Forgets a turn in progress (input_audio_buffer.clear); audio time keeps counting. */
  reset(): void {
    this.speaking = false;
    this.silentMs = 0;
  }
}
