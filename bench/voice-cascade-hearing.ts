/**
 * How the cascade bench's fake speech to text tells the visitors' utterances apart (bench/voice-cascade.ts --turns):
 * by the loudness of their speech every 20 ms, which the bench computes on its espeak-ng parts and the fake on what
 * it is sent (16 kHz uploads, 24 kHz streams).
 */
/** The speech in PCM16 (from its first to its last sample above 300), as RMS per 20 ms. */
export function envelope(pcm: Buffer, rate: number): number[] {
  let first = 0, last = pcm.length / 2 - 1;
  while (first < last && Math.abs(pcm.readInt16LE(first * 2)) < 300) first++;
  while (last > first && Math.abs(pcm.readInt16LE(last * 2)) < 300) last--;
  if (last <= first) return [];
  const step = rate / 50;
  const out: number[] = [];
  for (let at = first; at <= last; at += step) {
    let sq = 0, n = 0;
    for (let i = Math.floor(at); i < Math.min(last + 1, at + step); i++, n++) sq += pcm.readInt16LE(i * 2) ** 2;
    out.push(Math.sqrt(sq / Math.max(1, n)));
  }
  return out;
}

