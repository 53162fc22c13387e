/** Wraps raw little-endian PCM (what Gemini speech returns) in a WAV header so browsers can play it. */
export function pcmToWav(pcm: Buffer, sampleRate: number, channels = 1, bitsPerSample = 16): Buffer {
  const header = Buffer.alloc(44);
  const blockAlign = channels * (bitsPerSample / 8);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** Reads the sample rate from a mime type such as "audio/L16;codec=pcm;rate=24000". */
export function rateFromMime(mimeType: string, fallback = 24000): number {
  const m = /rate=(\d+)/i.exec(mimeType);
  return m ? Number(m[1]) : fallback;
}

/**
 * PCM16 from a byte stream (an HTTP body) in whole samples: a chunk may end mid-sample, so the odd byte waits for
 * the next one. Chunks shorter than `minBytes` are joined with the next (fewer, fuller frames to the widget).
 */
export async function* pcmChunks(source: AsyncIterable<Uint8Array>, minBytes = 1920): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  for await (const chunk of source) {
    if (!chunk.length) continue;
    held.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    heldBytes += chunk.length;
    if (heldBytes < minBytes) continue;
    const all = held.length === 1 ? held[0] : Buffer.concat(held, heldBytes);
    const even = heldBytes & ~1;
    held = even < heldBytes ? [all.subarray(even)] : [];
    heldBytes -= even;
    yield all.subarray(0, even);
  }
  const rest = (heldBytes & ~1) > 0 ? Buffer.concat(held, heldBytes).subarray(0, heldBytes & ~1) : null;
  if (rest) yield rest;
}
