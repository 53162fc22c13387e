/**
 * The engines are reached over TLS (wss): the shared read memory (src/providers/voice-ws-frames.ts) is then what
 * Node's TLS layer decrypts into. Two sockets read at once must each get every delta and every other event intact and
 * in order. The server is test/security/fixtures' certificate (secure.test), trusted through its CA.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import WebSocket, { WebSocketServer } from 'ws';
import { takeAudioDeltas } from '../../src/providers/realtime-openai-audio.js';

const fixture = (name: string) => readFileSync(new URL(`../security/fixtures/${name}`, import.meta.url));

function textFrame(payload: string): Buffer {
  const body = Buffer.from(payload);
  const head = body.length < 126 ? Buffer.from([0x81, body.length]) : Buffer.from([0x81, 126, body.length >> 8, body.length & 255]);
  return Buffer.concat([head, body]);
}
const delta = (item: string, n: number) => textFrame(`{"type":"response.output_audio.delta","event_id":"e","item_id":"${item}","delta":"${Buffer.alloc(960, n % 251).toString('base64')}"}`);
const said = (word: string) => textFrame(`{"type":"response.output_audio_transcript.delta","delta":"${word}"}`);

test('over TLS, two engine sockets read into the shared memory at once and each gets its deltas and events whole, in order', async () => {
  const server = https.createServer({ cert: fixture('server.pem'), key: fixture('server.key') });
  const wss = new WebSocketServer({ server });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const served: TLSSocket[] = [];
  wss.on('connection', (ws) => served.push((ws as unknown as { _socket: TLSSocket })._socket));

  const ROUNDS = 200;
  const clients = await Promise.all(['a', 'b'].map(async (name) => {
    const got: Array<string | Buffer> = [];
    // ws hands servername on to tls.connect (the certificate names secure.test), though its type does not list it.
    const options: WebSocket.ClientOptions & { servername: string } = { ca: fixture('ca.pem'), servername: 'secure.test', perMessageDeflate: false };
    const client = new WebSocket(`wss://127.0.0.1:${port}`, options);
    // The event's bytes are kept and read only at the end: what ws handed on must not be read memory reused since.
    client.on('message', (data: Buffer) => got.push(data));
    takeAudioDeltas(client, () => true, (itemId, pcm) => got.push(`audio ${itemId} ${pcm.length} ${pcm[0]}`));
    await new Promise((r) => client.once('open', r));
    return { name, client, got };
  }));
  await until(() => served.length >= 2, { interval: 5, message: 'both sockets served' });

  // Each round: a delta, an event, a delta, on both sockets; written in uneven pieces so frames split across reads.
  const want = clients.map(() => [] as string[]);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [k, raw] of served.entries()) {
      const item = `${clients[k].name}${i}`;
      const bytes = Buffer.concat([delta(item, i), said(`${clients[k].name}-${i}`), delta(item, i + 1)]);
      const cut = 1 + ((i * 37) % (bytes.length - 1));
      raw.write(bytes.subarray(0, cut));
      raw.write(bytes.subarray(cut));
      want[k].push(`audio ${item} 960 ${i % 251}`, `said ${clients[k].name}-${i}`, `audio ${item} 960 ${(i + 1) % 251}`);
    }
    if (i % 20 === 0) await new Promise((r) => setImmediate(r));
  }
  await until(() => clients.every((c, k) => c.got.length >= want[k].length), { timeout: 10_000, message: 'every frame read on both sockets' }).catch(() => undefined); // the assertion below names what is missing
  const text = (g: string | Buffer) => (typeof g === 'string' ? g : `said ${JSON.parse(g.toString()).delta}`);
  for (const [k, c] of clients.entries()) assert.equal(c.got.map(text), want[k], `socket ${c.name}`);

  // Both TLS sockets did switch to the shared read memory (Node's onread buffer is set on them).
  for (const c of clients) {
    const tls = (c.client as unknown as { _socket: Record<symbol, unknown> })._socket;
    assert.ok(Object.getOwnPropertySymbols(tls).some((s) => s.description === 'kBuffer' && Buffer.isBuffer(tls[s])), `socket ${c.name} reads into the shared memory`);
  }
  for (const c of clients) c.client.terminate();
  await new Promise((r) => wss.close(r));
  await new Promise((r) => server.close(r));
});

test.run();
