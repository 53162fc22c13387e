import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { Router } from '../../src/http/router.js';
import { createHttpServer } from '../../src/http/server.js';
import type { SocketEndpoint } from '../../src/http/types.js';
import { createLogger } from '../../src/log.js';

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

test('a socket whose upgrade finished after an await stays open, whatever its open handler allocates', async () => {
  // A Redis round trip (the scale-out group's shared connection limit) or a MongoDB read completes the upgrade
  // outside uWS's callback. This uWS build then checks the freed HTTP state of the socket after open; native
  // memory allocated inside open (Buffers, socket writes) could land there and close the new socket with 1006.
  const closes: number[] = [];
  const ep: SocketEndpoint<{ n: number }> = {
    path: '/s',
    upgrade: async () => { await new Promise((r) => setTimeout(r, 1)); return { n: 1 }; },
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

test.run();
