/**
 * The 16 -> 24 kHz resampling of the visitor's audio for OpenAI's realtime transcription (src/providers/pcm-resample.ts):
 * the same tone at the new rate, and the same samples whether the audio comes whole or in frames of any size.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PcmResampler } from '../../src/providers/pcm-resample.js';

function tone(hz: number, rate: number, samples: number, amp = 10_000): Buffer {
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  return out;
}

test('a second of a 440 Hz tone at 16 kHz becomes a second of the same tone at 24 kHz', () => {
  const out = new PcmResampler(16_000, 24_000).push(tone(440, 16_000, 16_000));
  assert.is(out.length / 2, 23_999, 'the 24,000th would fall after the last input sample');
  const want = tone(440, 24_000, 23_999);
  let worst = 0;
  for (let i = 0; i < 23_999; i++) worst = Math.max(worst, Math.abs(out.readInt16LE(i * 2) - want.readInt16LE(i * 2)));
  assert.ok(worst < 60, `at most ${worst} off a 10000 amplitude`);
});

test('audio in frames of any size gives the same samples as audio in one piece, with no seams', () => {
  const pcm = tone(300, 16_000, 8_000);
  const whole = new PcmResampler(16_000, 24_000).push(pcm);
  const r = new PcmResampler(16_000, 24_000);
  const parts: Buffer[] = [];
  const sizes = [640, 2, 1024, 6, 300, 2];
  for (let off = 0, i = 0; off < pcm.length; off += sizes[i++ % sizes.length]) parts.push(r.push(pcm.subarray(off, off + sizes[i % sizes.length])));
  assert.ok(Buffer.concat(parts).equals(whole));
});

test('at the end of the audio, an output that falls exactly on the last sample is given; none is made up past it', () => {
  const r = new PcmResampler(16_000, 24_000);
  // Three input samples: outputs at 0, 2/3 and 4/3; the one at 2 (exactly the last sample) waits for more audio.
  const out = r.push(Buffer.from(new Int16Array([0, 300, 600]).buffer));
  assert.equal([...new Int16Array(out.buffer, out.byteOffset, out.length / 2)], [0, 200, 400]);
  assert.equal([...new Int16Array(r.flush().buffer)], [600]);
  assert.is(r.flush().length, 0);
  const q = new PcmResampler(16_000, 24_000);
  q.push(Buffer.from(new Int16Array([0, 300]).buffer));
  assert.is(q.flush().length, 0, 'the next output would fall between the last sample and audio that never came');
});

test('rates that are not positive whole numbers are refused', () => {
  assert.throws(() => new PcmResampler(16_000, 0), /positive integers/);
  assert.throws(() => new PcmResampler(44_100.5, 24_000), /positive integers/);
});

test.run();
