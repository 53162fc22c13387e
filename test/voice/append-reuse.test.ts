import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import WebSocket, { WebSocketServer } from 'ws';
import { sendAppend } from '../../src/providers/realtime-openai-audio.js';
import { until } from '../helpers/until.js';

/** A loopback ws server that collects the audio of every append it reads; its reading can be paused. */
async function engine() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const got: Buffer[] = [];
  let peer: WebSocket | null = null;
  wss.on('connection', (ws) => {
    peer = ws;
    ws.on('message', (data) => got.push(Buffer.from((JSON.parse(data.toString()) as { audio: string }).audio, 'base64')));
  });
  const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
  const client = new WebSocket(url);
  await new Promise<void>((r) => client.once('open', () => r()));
  await until(() => peer, { interval: 5, message: 'the server side of the socket' });
  const tcp = () => (peer as unknown as { _socket: import('node:net').Socket })._socket;
  return { client, got, pause: () => tcp().pause(), resume: () => tcp().resume(), close: () => { client.terminate(); wss.close(); } };
}

test('20 ms microphone frames sent one after another each reach the engine as they were', async () => {
  const e = await engine();
  const sent = Array.from({ length: 200 }, () => randomBytes(960));
  for (const pcm of sent) sendAppend(e.client, pcm);
  await until(() => e.got.length === sent.length, { interval: 5, message: 'every appended chunk at the engine' });
  assert.is(e.got.length, sent.length);
  sent.forEach((pcm, i) => assert.ok(e.got[i].equals(pcm), `frame ${i}`));
  e.close();
});

test('frames written while the engine reads nothing (the socket holds them) are not overwritten by later ones', async () => {
  const e = await engine();
  e.pause();
  // Several MB: more than the kernel's socket buffers take, so the client's socket holds frames of its own.
  const sent = Array.from({ length: 4000 }, () => randomBytes(960));
  for (const pcm of sent) sendAppend(e.client, pcm);
  assert.ok((e.client as unknown as { _socket: { writableLength: number } })._socket.writableLength > 0, 'the socket holds unsent frames');
  e.resume();
  await until(() => e.got.length === sent.length, { interval: 5, message: 'every appended chunk at the engine' });
  assert.is(e.got.length, sent.length);
  sent.forEach((pcm, i) => assert.ok(e.got[i].equals(pcm), `frame ${i}`));
  e.close();
});

test.run();
