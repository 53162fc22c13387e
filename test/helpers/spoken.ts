/**
 * Real speech for tests that need a voice-activity model to hear it: espeak-ng says the text (SSML, so
 * `<break time="500ms"/>` makes a pause) and ffmpeg turns it into PCM16 mono at the rate asked (both are installed
 * by .ci/run). Made once per text.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'spoken-'));
const made = new Map<string, Buffer>();

export function spokenPcm(ssml: string, rate = 16_000): Buffer {
  const key = `${rate}|${ssml}`;
  let pcm = made.get(key);
  if (!pcm) {
    const wav = join(dir, `${made.size}.wav`);
    const raw = join(dir, `${made.size}.raw`);
    execFileSync('espeak-ng', ['-m', '-w', wav, ssml]);
    execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-i', wav, '-ar', String(rate), '-ac', '1', '-f', 's16le', raw]);
    pcm = readFileSync(raw);
    made.set(key, pcm);
  }
  return pcm;
}

export const silentPcm = (ms: number, rate = 16_000) => Buffer.alloc(Math.round((ms / 1000) * rate) * 2);

/** Bytes from the first to the last sample of speech in PCM16 (espeak-ng's quiet before and after left out). */
export function spokenBytes(pcm: Buffer): number {
  let first = 0, last = pcm.length / 2 - 1;
  while (first < last && Math.abs(pcm.readInt16LE(first * 2)) < 300) first++;
  while (last > first && Math.abs(pcm.readInt16LE(last * 2)) < 300) last--;
  return (last - first + 1) * 2;
}

/**
 * A microphone: sends `pcm` (PCM16 mono, 16 kHz) to `engine` in 20 ms frames on a real-time clock that does not
 * drift, as the widget does, and resolves when its last frame was sent, with that time (Date.now()). `onFrame` is
 * called after each frame with its byte offset; `stopWhen` ends the speech early (checked before each frame).
 * This paces audio, it does not wait for anything: tests wait with test/helpers/until.ts.
 */
export async function speakInRealTime(engine: { appendAudio(pcm: Buffer): void }, pcm: Buffer, opts: { onFrame?: (offset: number) => void; stopWhen?: () => boolean } = {}): Promise<number> {
  const FRAME = 640;
  const t0 = performance.now();
  let sentAt = Date.now();
  for (let k = 0; k * FRAME < pcm.length; k++) {
    if (opts.stopWhen?.()) break;
    const due = t0 + k * 20 - performance.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
    engine.appendAudio(pcm.subarray(k * FRAME, (k + 1) * FRAME));
    sentAt = Date.now();
    opts.onFrame?.(k * FRAME);
  }
  return sentAt;
}
