import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendEvent, decodeWithHeadroom, readAudioDelta } from '../../src/providers/realtime-openai-audio.js';
import { audioFrame } from '../../src/chat/voice-frames.js';

const pcm = Buffer.from([1, 2, 3, 4, 250, 251, 0, 9, 0xff, 0xfe]);
const b64 = pcm.toString('base64');
const frame = (text: string) => Buffer.from(text, 'latin1');

test('an append event is the JSON the API reads, with the audio in base64', () => {
  assert.equal(JSON.parse(appendEvent(pcm).toString()), { type: 'input_audio_buffer.append', audio: b64 });
});

test('an audio delta is read without parsing, whether its type comes first (OpenAI) or after its event id', () => {
  const openai = `{"type":"response.output_audio.delta","event_id":"event_1","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":"${b64}"}`;
  assert.equal(readAudioDelta(frame(openai)), { itemId: 'item_1', delta: b64 });
  const idFirst = `{"event_id":"event_2","type":"response.output_audio.delta","response_id":"resp_1","item_id":"item_2","output_index":0,"content_index":0,"delta":"${b64}"}`;
  assert.equal(readAudioDelta(frame(idFirst)), { itemId: 'item_2', delta: b64 });
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

test.run();
