/**
 * PCM16 mono resampling by linear interpolation, chunk by chunk with no seams: the cascade hears the visitor at
 * 16 kHz (what Silero VAD takes) and OpenAI's Realtime transcription takes 24 kHz only. Speech to text needs no
 * better filter for this: upsampling adds nothing below the 8 kHz the 16 kHz audio holds, and what interpolation
 * mirrors above it is faint and outside the speech band the models listen to.
 */
export class PcmResampler {
  /** Where the next output sample falls, in 1/`to` of an input sample, from the current chunk's first sample (-to: the last one before it). */
  private pos = 0;
  private prev = 0;

  constructor(private readonly from: number, private readonly to: number) {
    if (!Number.isInteger(from) || !Number.isInteger(to) || from <= 0 || to <= 0) throw new RangeError(`sample rates must be positive integers (got ${from} and ${to})`);
  }

  /** The chunk's samples at the new rate (an odd last byte is ignored: PCM16 comes in whole samples). */
  push(pcm: Buffer): Buffer {
    const n = pcm.length >> 1;
    if (!n) return Buffer.alloc(0);
    const { from, to } = this;
    // Typed arrays read samples three times faster than readInt16LE (the hosts Node runs on are little-endian, as
    // PCM16 LE is); a view needs an even offset, else the chunk is copied.
    const x = pcm.byteOffset % 2 === 0 ? new Int16Array(pcm.buffer, pcm.byteOffset, n) : new Int16Array(Uint8Array.from(pcm.subarray(0, n * 2)).buffer);
    const y = new Int16Array(Math.ceil(((n + 1) * to) / from) + 1);
    let k = 0;
    let pos = this.pos;
    // Each output needs the samples on both sides of it; one exactly on the last sample is made with the next chunk.
    for (let i = Math.floor(pos / to); i <= n - 2; i = Math.floor(pos / to)) {
      const a = i < 0 ? this.prev : x[i];
      y[k++] = Math.round(a + ((x[i + 1] - a) * (pos - i * to)) / to);
      pos += from;
    }
    this.pos = pos - n * to;
    this.prev = x[n - 1];
    return Buffer.from(y.buffer, 0, k * 2);
  }

  /** The end of the audio: the output sample that falls exactly on the last input sample (else nothing). */
  flush(): Buffer {
    if (this.pos !== -this.to) return Buffer.alloc(0);
    this.pos += this.from;
    const out = Buffer.alloc(2);
    out.writeInt16LE(this.prev);
    return out;
  }
}
