import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { Router } from '../../src/http/router.js';
import { createHttpServer } from '../../src/http/server.js';
import type { SocketEndpoint } from '../../src/http/types.js';
import { createLogger } from '../../src/kernel/log.js';
import { ApiError } from '../../src/kernel/errors.js';

/** Opens a socket, waits for its first frame, and reports how it closed once the client closes it 30 ms later. */
function visit(port: number): Promise<{ frame: string | null; code: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/s`);
    let frame: string | null = null;
    ws.on('message', (m) => { frame = String(m); setTimeout(() => ws.close(1000), 30); });
    ws.on('close', (code) => resolve({ frame, code }));
    ws.on('error', () => {});
  });
}

test('a socket admitted after an await stays open, whatever its open handler allocates', async () => {
  // The upgrade is answered inside uWS's callback; what needs the store (a Redis round trip, a MongoDB read) runs
  // in admit, after open. Native memory allocated inside open (Buffers, socket writes) must not close it.
  const closes: number[] = [];
  const ep: SocketEndpoint<{ n: number }> = {
    path: '/s',
    upgrade: () => ({ n: 1 }),
    admit: async () => { await new Promise((r) => setImmediate(r)); }, // a later turn of the event loop, as a store read
    open(conn) {
      const kept: Buffer[] = [];
      for (let size = 8; size < 400; size += 8) kept.push(Buffer.allocUnsafeSlow(size).fill(0x10));
      conn.send(JSON.stringify({ t: 'ready', kept: kept.length }));
    },
    message() {},
    close(_conn, code) { closes.push(code); },
  };
  const http = createHttpServer({ logger: createLogger('silent'), router: new Router(), bodyLimitBytes: 1024, trustProxy: 0, sockets: [ep] });
  const port = await http.listen('127.0.0.1', 0);
  try {
    const results: Array<{ frame: string | null; code: number }> = [];
    for (let i = 0; i < 150; i++) results.push(await visit(port));
    const dropped = results.filter((r) => r.code !== 1000).length;
    assert.is(dropped, 0, `${dropped} of 150 sockets were dropped by the server`);
    assert.ok(results.every((r) => r.frame === '{"t":"ready","kept":49}'));
    assert.is(closes.filter((c) => c === 1000).length, 150, 'the endpoint saw every close, each the client\'s 1000');
  } finally {
    await http.close();
  }
});

test('frames sent before the socket is admitted reach the endpoint after open, in order, binary ones intact', async () => {
  let admitted!: () => void;
  const seen: string[] = [];
  const ep: SocketEndpoint<object> = {
    path: '/s',
    upgrade: () => ({}),
    admit: () => new Promise<void>((r) => { admitted = r; }),
    open(conn) { seen.push('open'); conn.send('ready'); },
    message(conn, data, isBinary) {
      seen.push(isBinary ? `bin:${[...(data as Buffer)].join(',')}` : String(data));
      if (seen.length === 5) conn.send(seen.join(' '));
    },
    close() {},
  };
  const http = createHttpServer({ logger: createLogger('silent'), router: new Router(), bodyLimitBytes: 1024, trustProxy: 0, sockets: [ep] });
  const port = await http.listen('127.0.0.1', 0);
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/s`);
    const frames: string[] = [];
    const got = new Promise<void>((resolve) => ws.on('message', (m) => { frames.push(String(m)); if (frames.length === 2) resolve(); }));
    await new Promise((r) => ws.once('open', r));
    ws.send('one');
    ws.send(Buffer.from([1, 2, 3]));
    ws.send('three');
    // The server has the three frames before admit ends (a ping's pong comes after them on the same socket).
    await new Promise<void>((r) => { ws.once('pong', () => r()); ws.ping(); });
    ws.send('four');
    await new Promise<void>((r) => { ws.once('pong', () => r()); ws.ping(); });
    assert.equal(seen, [], 'nothing reaches the endpoint before it is admitted');
    admitted();
    await got;
    assert.equal(frames, ['ready', 'open one bin:1,2,3 three four']);
    ws.close();
  } finally {
    await http.close();
  }
});

test('a socket refused by admit is told why and closed with 4000 + status; a synchronous refusal is an HTTP answer', async () => {
  const closes: number[] = [];
  const ep: SocketEndpoint<object> = {
    path: '/s',
    upgrade: (req) => { if (req.query.get('k') !== 'ok') throw new ApiError('bad_request', 400, 'k: required'); return {}; },
    admit: async () => { await new Promise((r) => setImmediate(r)); throw new ApiError('forbidden', 403, 'this bot is paused'); },
    refuse(conn, why) { conn.send(JSON.stringify(why)); },
    open() { throw new Error('never opened'); },
    message() {},
    close(_conn, code) { closes.push(code); },
  };
  const http = createHttpServer({ logger: createLogger('silent'), router: new Router(), bodyLimitBytes: 1024, trustProxy: 0, sockets: [ep] });
  const port = await http.listen('127.0.0.1', 0);
  try {
    const refused = await new Promise<{ frame: string | null; code: number; reason: string }>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/s?k=ok`);
      let frame: string | null = null;
      ws.on('message', (m) => { frame = String(m); });
      ws.on('close', (code, reason) => resolve({ frame, code, reason: String(reason) }));
    });
    assert.equal(refused, { frame: JSON.stringify({ status: 403, code: 'forbidden', message: 'this bot is paused' }), code: 4403, reason: 'forbidden' });
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/s`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => {});
    });
    assert.is(status, 400);
    assert.equal(closes, [], 'the endpoint never saw a socket it did not open');
  } finally {
    await http.close();
  }
});

test.run();
