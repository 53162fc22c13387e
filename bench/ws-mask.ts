/**
 * What masking the hand-written append frames costs (RFC 6455: a fresh random key per client frame). Per 20 ms
 * microphone frame at 24 kHz (960 samples, 1,920 bytes of PCM, 2.6 KB of base64): the append event alone (the
 * baseline: base64 into one buffer, no header, no mask), the whole frame as sent (header and masked payload,
 * src/providers/realtime-openai-audio.ts), and ws's own path for the same event (Sender.frame: a copy XOR-ed with a
 * random key). Alternated rounds; medians. Run: npx tsx bench/ws-mask.ts
 */
import { randomBytes } from 'node:crypto';
import * as wsModule from 'ws';
import { appendEvent, appendFrame } from '../src/providers/realtime-openai-audio.js';

const pcm = randomBytes(1920);
const reuse = appendFrame(pcm);
const Sender = (wsModule as unknown as { Sender: { frame(d: Buffer, o: object): Buffer[] } }).Sender;
const wsFrame = () => Sender.frame(appendEvent(pcm), { fin: true, opcode: 1, mask: true, readOnly: false, rsv1: false, maskBuffer: Buffer.alloc(4) });

/** Nanoseconds per call over `ms`. */
function time(fn: () => void, ms = 200): number {
  let n = 0;
  const start = performance.now();
  do { for (let i = 0; i < 100; i++) fn(); n += 100; } while (performance.now() - start < ms);
  return ((performance.now() - start) * 1e6) / n;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const runs: Record<string, number[]> = { event: [], frame: [], frameReused: [], ws: [] };
for (let round = 0; round < 7; round++) {
  runs.event.push(time(() => appendEvent(pcm)));
  runs.frame.push(time(() => appendFrame(pcm)));
  runs.frameReused.push(time(() => appendFrame(pcm, reuse)));
  runs.ws.push(time(wsFrame));
}
const base = median(runs.event);
for (const [name, xs] of Object.entries(runs)) console.log(`${name.padEnd(12)} ${median(xs).toFixed(0).padStart(6)} ns per 20 ms frame  (${(median(xs) / base).toFixed(2)}x the event alone)`);
const maskNs = median(runs.frameReused) - base;
console.log(`masking and header: about ${Math.max(0, maskNs).toFixed(0)} ns a frame; 200 sessions at 50 frames/s: ${((Math.max(0, maskNs) * 200 * 50) / 1e7).toFixed(2)} % of a core`);
