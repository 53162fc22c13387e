/**
 * The voice relay's fast paths read ws's and Node's private state through src/providers/ws-internals.ts; when an
 * upgrade of ws or Node changes it they switch themselves off (slower, still correct). This test is what notices:
 * it fails, naming the missing piece, on the Node versions CI runs (20, 22, 24).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import WebSocket, { WebSocketServer } from 'ws';
import { missingInternals } from '../../src/providers/ws-internals.js';
import { sendAppend } from '../../src/providers/realtime-openai-audio.js';
import { until } from '../helpers/until.js';

async function pair() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const raw: Buffer[] = [];
  const got: Buffer[] = [];
  wss.on('connection', (ws) => {
    // The bytes as they came off the wire, before ws unmasks them.
    (ws as unknown as { _socket: import('node:net').Socket })._socket.prependListener('data', (c: Buffer) => raw.push(Buffer.from(c)));
    ws.on('message', (data) => got.push(Buffer.from((JSON.parse(data.toString()) as { audio: string }).audio, 'base64')));
  });
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`, { perMessageDeflate: false });
  await new Promise<void>((r) => client.once('open', () => r()));
  return { client, raw, got, close: () => { client.terminate(); wss.close(); } };
}

test('every private piece of ws and Node the relay reads is there on an open socket', async () => {
  const p = await pair();
  try {
    assert.equal(missingInternals(p.client), [], `ws ${(WebSocket as unknown as { VERSION?: string }).VERSION ?? ''} on Node ${process.version}`);
  } finally {
    p.close();
  }
});

test('appends written beside ws reach the server masked, each frame with its own key, and unmask to the audio', async () => {
  const p = await pair();
  try {
    const sent = Array.from({ length: 50 }, () => randomBytes(960));
    for (const pcm of sent) sendAppend(p.client, pcm);
    await until(() => p.got.length === sent.length, { message: 'every append at the server' });
    sent.forEach((pcm, i) => assert.ok(p.got[i].equals(pcm), `frame ${i}`));
    // Walk the client's frames: 0x81, mask bit + 126, a 16-bit length, the key, the payload.
    const bytes = Buffer.concat(p.raw);
    const keys = new Set<string>();
    for (let at = 0; at < bytes.length;) {
      assert.is(bytes[at], 0x81);
      assert.is(bytes[at + 1], 0x80 | 126, 'masked, 16-bit length');
      const len = bytes.readUInt16BE(at + 2);
      keys.add(bytes.toString('hex', at + 4, at + 8));
      at += 8 + len;
    }
    assert.is(keys.size, sent.length, 'a fresh key per frame');
    assert.not.ok(keys.has('00000000'), 'no all-zero key');
  } finally {
    p.close();
  }
});

test.run();
