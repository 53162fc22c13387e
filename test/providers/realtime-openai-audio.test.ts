import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import * as wsModule from 'ws';
import { appendEvent, appendFrame, decodeBytesWithHeadroom, decodeWithHeadroom, readAudioDelta } from '../../src/providers/realtime-openai-audio.js';
import { base64Length, decodeBase64Into, encodeBase64Into } from '../../src/providers/base64-bytes.js';
import { audioFrame } from '../../src/conversation/voice-frames.js';

const pcm = Buffer.from([1, 2, 3, 4, 250, 251, 0, 9, 0xff, 0xfe]);
const b64 = pcm.toString('base64');
const frame = (text: string) => Buffer.from(text, 'latin1');

test('an append event is the JSON the API reads, with the audio in base64', () => {
  assert.equal(JSON.parse(appendEvent(pcm).toString()), { type: 'input_audio_buffer.append', audio: b64 });
});

/** The delta text a reader found, as a string. */
const deltaOf = (data: Buffer, r: { itemId: string; start: number; end: number } | null) => r && { itemId: r.itemId, delta: data.toString('latin1', r.start, r.end) };

test('an audio delta is read without parsing, whether its type comes first (OpenAI) or after its event id', () => {
  const openai = frame(`{"type":"response.output_audio.delta","event_id":"event_1","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":"${b64}"}`);
  assert.equal(deltaOf(openai, readAudioDelta(openai)), { itemId: 'item_1', delta: b64 });
  const idFirst = frame(`{"event_id":"event_2","type":"response.output_audio.delta","response_id":"resp_1","item_id":"item_2","output_index":0,"content_index":0,"delta":"${b64}"}`);
  assert.equal(deltaOf(idFirst, readAudioDelta(idFirst)), { itemId: 'item_2', delta: b64 });
  // The last item id is reused when it repeats, and not when it changed.
  const known = 'item_2';
  assert.is(readAudioDelta(idFirst, known)!.itemId, known);
  assert.is(readAudioDelta(idFirst, 'item_3')!.itemId, 'item_2');
  assert.is(readAudioDelta(idFirst, 'item_22')!.itemId, 'item_2');
});

test('base64 written and read as bytes is what Node writes and reads, for every length and byte', () => {
  for (let n = 0; n < 200; n++) {
    const bytes = randomBytes(n);
    const text = bytes.toString('base64');
    const out = Buffer.alloc(text.length + 3);
    assert.is(encodeBase64Into(bytes, out, 3), 3 + text.length);
    assert.is(out.toString('latin1', 3), text);
    const back = Buffer.alloc(n + 1);
    assert.is(decodeBase64Into(out, 3, out.length, back, 1), n);
    assert.ok(back.subarray(1).equals(bytes));
    // Unpadded text decodes the same.
    const bare = Buffer.from(text.replace(/=+$/, ''), 'latin1');
    assert.ok(decodeBytesWithHeadroom(bare, 0, bare.length).equals(bytes));
  }
});

test('base64 that is not plain (base64url, whitespace, a stray character) is decoded as Node decodes it', () => {
  for (const text of ['AQID-_8=', 'AQID BAU=', 'AQ\nID', 'AQI=AQ==', 'A', 'AQIDB', '!!AQID']) {
    const data = frame(`x${text}y`);
    assert.ok(decodeBytesWithHeadroom(data, 1, data.length - 1).equals(decodeWithHeadroom(text)), text);
  }
});

/** Where a client frame's masking key starts (after the length bytes). */
const keyAt = (f: Buffer) => ((f[1] & 0x7f) === 127 ? 10 : (f[1] & 0x7f) === 126 ? 4 : 2);
/** The frame with its payload unmasked and its key zeroed (what it carries, whatever the key). */
function unmasked(f: Buffer): Buffer {
  const out = Buffer.from(f);
  const k = keyAt(out);
  for (let i = k + 4; i < out.length; i++) out[i] ^= f[k + ((i - k - 4) & 3)];
  out.fill(0, k, k + 4);
  return out;
}

test('an append frame is byte for byte what ws writes for the append event with the same key; each frame has a fresh key', () => {
  const keys = new Set<string>();
  for (const size of [0, 1, 2, 3, 10, 60, 960, 4800, 60_000]) {
    const audio = randomBytes(size);
    const event = appendEvent(audio);
    const ours = appendFrame(audio);
    const key = ours.subarray(keyAt(ours), keyAt(ours) + 4);
    const list = (wsModule as unknown as { Sender: { frame(d: Buffer, o: object): Buffer[] } }).Sender.frame(Buffer.from(event), {
      fin: true, opcode: 1, mask: true, readOnly: false, rsv1: false, maskBuffer: Buffer.alloc(4), generateMask: (m: Buffer) => key.copy(m),
    });
    assert.ok(ours.equals(Buffer.concat(list)), `${size} bytes`);
    keys.add(key.toString('hex'));
  }
  // RFC 6455 5.3: a fresh, unpredictable key for every frame (never the all-zero key that leaves the payload plain).
  for (let i = 0; i < 200; i++) { const f = appendFrame(pcm); keys.add(f.subarray(keyAt(f), keyAt(f) + 4).toString('hex')); }
  assert.ok(keys.size >= 205, `${keys.size} distinct keys in 209 frames`);
  assert.not.ok(keys.has('00000000'));
});

test('anything but a plainly written audio delta is left to the SDK', () => {
  const cases = [
    '{"type":"response.output_audio_transcript.delta","item_id":"item_1","delta":"Hello"}',
    '{"type":"response.output_audio.delta","item_id":"item_1","delta":"ab\\/cd"}',
    '{"type":"response.output_audio.delta","item_id":"it\\"em","delta":"abcd"}',
    '{"type":"response.output_audio.delta","delta":"abcd","item_id":"item_1","extra":{"a":1}}',
    '{"type":"response.output_audio.delta","item_id":"item_1"}',
    `{"event_id":"${'e'.repeat(200)}","type":"response.output_audio.delta","item_id":"item_1","delta":"abcd"}`,
  ];
  for (const c of cases) assert.is(readAudioDelta(frame(c)), null, c);
  assert.is(readAudioDelta(frame('{"type":"response.output_audio.delta","item_id":"item_1","delta":"abcd"} ')), null);
});

test('decoded audio leaves a spare byte in front, so the widget frame is the same memory with its header', () => {
  const decoded = decodeWithHeadroom(b64);
  assert.ok(decoded.equals(pcm));
  const f = audioFrame(decoded, 1);
  assert.is(f.buffer, decoded.buffer);
  assert.is(f[0], 0x01);
  assert.ok(f.subarray(1).equals(pcm));
  // Without headroom the frame is a copy with the same bytes.
  assert.ok(audioFrame(pcm).equals(f));
});

test('the append for a widget frame is written from after its header byte, as for the PCM alone', () => {
  for (const size of [958, 959, 960, 961]) {
    const audio = Buffer.from(Array.from({ length: size }, (_, i) => (i * 37) & 255));
    const frame = Buffer.concat([Buffer.from([1]), audio]);
    assert.ok(unmasked(appendFrame(frame, undefined, 1)).equals(unmasked(appendFrame(audio))), `${size} bytes`);
    const out = Buffer.alloc(base64Length(size));
    encodeBase64Into(frame, out, 0, 1);
    assert.is(out.toString('latin1'), audio.toString('base64'));
  }
});

test.run();
