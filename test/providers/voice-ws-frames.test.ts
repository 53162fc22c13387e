import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AddressInfo, Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { audioDeltaReads, takeAudioDeltas } from '../../src/providers/realtime-openai-audio.js';
import { takeTextFramesAhead, wholeFrameEnd } from '../../src/providers/voice-ws-frames.js';
import { until } from '../helpers/until.js';

/** A server text frame (unmasked) holding `payload`. */
function textFrame(payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const head = body.length < 126 ? Buffer.from([0x81, body.length]) : Buffer.from([0x81, 126, body.length >> 8, body.length & 255]);
  return Buffer.concat([head, body]);
}
const delta = (item: string, pcm: Buffer, extra = '') => textFrame(`{"type":"response.output_audio.delta","event_id":"e${extra}","item_id":"${item}","delta":"${pcm.toString('base64')}"}`);
const pcmOf = (n: number, fill: number) => Buffer.alloc(n, fill);

/**
 * A ws server whose connection's raw TCP socket the test writes to, and a client connected to it. `delivered()`
 * resolves once the client's socket has read every byte the server wrote (so the next write comes in a read of its
 * own, and ws has handled this one).
 */
async function pair(setup: (client: WebSocket) => void): Promise<{ raw: Socket; client: WebSocket; delivered(): Promise<unknown>; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const served = new Promise<WebSocket>((r) => wss.once('connection', r));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
  setup(client);
  await new Promise((r) => client.once('open', r));
  const raw = (await served as unknown as { _socket: Socket })._socket;
  raw.setNoDelay(true);
  const tcp = (client as unknown as { _socket: Socket })._socket;
  const delivered = () => until(() => tcp.bytesRead >= raw.bytesWritten, { message: `the client reading all ${raw.bytesWritten} bytes the server wrote (read ${tcp.bytesRead})` });
  return { raw, client, delivered, close: async () => { client.terminate(); await new Promise((r) => wss.close(r)); } };
}

test('a whole unmasked frame is found in a read; a split or masked one is not', () => {
  const f = textFrame('{"a":1}');
  assert.is(wholeFrameEnd(f, 0, 0), f.length);
  const two = Buffer.concat([f, textFrame('x'.repeat(300))]);
  assert.is(wholeFrameEnd(two, f.length, 0), two.length);
  assert.is(wholeFrameEnd(two.subarray(0, two.length - 1), f.length, 0), -1);
  assert.is(wholeFrameEnd(Buffer.from([0x81, 0x85, 0, 0, 0, 0, 1, 2, 3, 4, 5]), 0, 0), -1); // masked
  assert.is(wholeFrameEnd(Buffer.from([0x01, 1, 0x41]), 0, 0), 3); // not FIN: whole, for ws
  assert.is(wholeFrameEnd(Buffer.from([0x82, 1, 0x41]), 0, 0), 3); // binary: whole, for ws
  assert.is(wholeFrameEnd(f, 0, 3), -1); // over ws's maxPayload
});

test('audio deltas are taken ahead of ws, and every other event still reaches ws in the order it was sent', async () => {
  const got: string[] = [];
  let ahead = 0;
  const reads0 = { ...audioDeltaReads };
  const p = await pair((client) => {
    // Counts the whole frames offered after takeAudioDeltas' reader declined one (installed first, it reads second).
    takeTextFramesAhead(client, () => { ahead++; return false; });
    client.on('message', (data: Buffer) => got.push(`event ${JSON.parse(data.toString()).type}`));
    takeAudioDeltas(client, () => true, (itemId, pcm) => got.push(`audio ${itemId} ${pcm.length} ${pcm[0]}`));
  });
  // One read: a delta, another event (to ws alone), a delta.
  p.raw.write(Buffer.concat([delta('item_1', pcmOf(960, 1)), textFrame('{"type":"response.output_audio_transcript.delta","delta":"hi"}'), delta('item_1', pcmOf(960, 2))]));
  await p.delivered();
  // A delta split over reads (a busy server reads many frames at once) is held until its end comes, then taken;
  // so is the delta after it.
  const split = delta('item_2', pcmOf(960, 3));
  p.raw.write(split.subarray(0, 500));
  await p.delivered();
  p.raw.write(split.subarray(500, 900));
  await p.delivered();
  p.raw.write(Buffer.concat([split.subarray(900), delta('item_2', pcmOf(960, 4))]));
  await p.delivered();
  // Another event split over two reads reaches ws whole, in its place.
  const said = textFrame('{"type":"response.output_audio_transcript.delta","delta":"there"}');
  p.raw.write(said.subarray(0, 20));
  await p.delivered();
  p.raw.write(said.subarray(20));
  await p.delivered();
  // Back in step: two deltas in one read, both taken ahead.
  p.raw.write(Buffer.concat([delta('item_3', pcmOf(480, 5)), delta('item_3', pcmOf(480, 6))]));
  await p.delivered();
  // A delta with other UTF-8 text in it is left to ws (it checks UTF-8), and read there the same.
  p.raw.write(delta('item_4', pcmOf(960, 7), 'é'));
  await p.delivered();
  assert.equal(got, [
    'audio item_1 960 1', 'event response.output_audio_transcript.delta', 'audio item_1 960 2',
    'audio item_2 960 3', 'audio item_2 960 4', 'event response.output_audio_transcript.delta', 'audio item_3 480 5', 'audio item_3 480 6', 'audio item_4 960 7',
  ]);
  // Declined by the audio reader, so offered to the next reader in: the two transcript events and the delta with
  // UTF-8 text.
  assert.is(ahead, 3);
  // Read in front of ws: all but the one with UTF-8 text.
  assert.equal({ ahead: audioDeltaReads.ahead - reads0.ahead, ws: audioDeltaReads.ws - reads0.ws }, { ahead: 6, ws: 1 });
  await p.close();
});

test('a delta that is not valid UTF-8 is refused by ws as before: an error, then the socket closes', async () => {
  const taken: number[] = [];
  const p = await pair((client) => takeAudioDeltas(client, () => true, (_id, pcm) => taken.push(pcm.length)));
  const closed = new Promise<void>((r) => p.client.once('close', () => r()));
  const errors: string[] = [];
  p.client.on('error', (err) => errors.push(err.message));
  const bad = delta('item_1', pcmOf(30, 1));
  bad[bad.indexOf('"e"') + 1] = 0xff;
  p.raw.write(Buffer.concat([bad, delta('item_1', pcmOf(30, 2))]));
  await closed;
  assert.equal(errors, ['Invalid WebSocket frame: invalid UTF-8 sequence']);
  assert.equal(taken, []);
  await p.close();
});

test('a ping between deltas is answered by ws, and the deltas around it are still read ahead', async () => {
  const got: string[] = [];
  const reads0 = { ...audioDeltaReads };
  const p = await pair((client) => takeAudioDeltas(client, () => true, (id) => got.push(id)));
  // The client's pong: FIN + opcode 0xA, masked, with the ping's 4 bytes.
  const pong = new Promise<string>((r) => p.raw.once('data', (d: Buffer) => r(`${d[0].toString(16)} ${d[1].toString(16)}`)));
  p.raw.write(Buffer.concat([delta('item_1', pcmOf(96, 1)), Buffer.from([0x89, 4, 0x70, 0x69, 0x6e, 0x67]), delta('item_2', pcmOf(96, 1))]));
  assert.is(await pong, '8a 84');
  await p.delivered();
  assert.equal(got, ['item_1', 'item_2']);
  assert.equal(audioDeltaReads.ahead - reads0.ahead, 2);
  await p.close();
});

test('while audio is not wanted, deltas reach the SDK through ws', async () => {
  const got: string[] = [];
  const p = await pair((client) => {
    client.on('message', (data: Buffer) => got.push(JSON.parse(data.toString()).type));
    takeAudioDeltas(client, () => false, () => got.push('taken'));
  });
  p.raw.write(Buffer.concat([delta('item_1', pcmOf(96, 1)), delta('item_1', pcmOf(96, 1))]));
  await p.delivered();
  assert.equal(got, ['response.output_audio.delta', 'response.output_audio.delta']);
  await p.close();
});

test('frames ws reads are its own copies: what it handed on stays whole while later reads reuse the read memory', async () => {
  const kept: Buffer[] = [];
  const p = await pair((client) => {
    client.on('message', (data: Buffer) => kept.push(data));
    takeAudioDeltas(client, () => true, () => {});
  });
  const events = ['first', 'second', 'third'].map((word) => `{"type":"response.output_audio_transcript.delta","delta":"${word}"}`);
  for (const e of events) {
    p.raw.write(Buffer.concat([delta('item_1', pcmOf(960, 9)), textFrame(e), delta('item_1', pcmOf(960, 8))]));
    await p.delivered();
  }
  assert.equal(kept.map((b) => b.toString()), events);
  // The client's socket did switch to reading into the shared memory (Node's onread buffer is set).
  const tcp = (p.client as unknown as { _socket: Record<symbol, unknown> })._socket;
  assert.ok(Object.getOwnPropertySymbols(tcp).some((k) => k.description === 'kBuffer' && Buffer.isBuffer(tcp[k])));
  await p.close();
});

test.run();
