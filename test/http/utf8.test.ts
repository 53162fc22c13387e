/**
 * Text leaves the server as UTF-8 on every Node version. The uWebSockets.js binary Node 24 loads writes a JS string
 * that V8 keeps at one byte per character (Latin-1: "fünf", "geöffnet", "Grüße") as raw Latin-1 bytes; through
 * src/http/utf8.ts every body, frame and close reason is UTF-8. The raw bytes are checked, not a decoder's guess.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { request } from 'node:http';
import { Router } from '../../src/http/router.js';
import { createHttpServer } from '../../src/http/server.js';
import type { SocketEndpoint } from '../../src/http/types.js';
import { createLogger } from '../../src/kernel/log.js';
import { ApiError } from '../../src/kernel/errors.js';

// Built at run time from code points, so V8 keeps each as a one-byte string (a literal would be too, but this
// makes the point): Latin-1 text with no character beyond U+00FF.
const LATIN1 = String.fromCharCode(0x57, 0x69, 0x72, 0x20, 0x68, 0x61, 0x62, 0x65, 0x6e, 0x20, 0x67, 0x65, 0xf6, 0x66, 0x66, 0x6e, 0x65, 0x74); // "Wir haben geöffnet"
const WIDE = 'Grüße, 5 € — 日本語';

function raw(port: number, path: string): Promise<{ status: number; length: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`http://127.0.0.1:${port}${path}`, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, length: Number(res.headers['content-length']), body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const isUtf8Of = (bytes: Buffer, text: string) => bytes.equals(Buffer.from(text, 'utf8'));

test('REST bodies (JSON, plain text, an error message, a refused upgrade) are UTF-8 with the right length', async () => {
  const router = new Router();
  router.add('GET', '/json', () => ({ body: { text: LATIN1, wide: WIDE } }));
  router.add('GET', '/text', () => ({ body: LATIN1 }));
  router.add('GET', '/error', () => { throw new ApiError('not_found', 404, `${LATIN1}: not found; check the id`); });
  const ep: SocketEndpoint<object> = {
    path: '/refused',
    upgrade: () => { throw new ApiError('forbidden', 403, `${LATIN1}: this origin may not connect`); },
    open() {}, message() {}, close() {},
  };
  const http = createHttpServer({ logger: createLogger('silent'), router, bodyLimitBytes: 1024, trustProxy: 0, sockets: [ep] });
  const port = await http.listen('127.0.0.1', 0);
  try {
    const json = await raw(port, '/json');
    assert.ok(isUtf8Of(json.body, JSON.stringify({ text: LATIN1, wide: WIDE })), `JSON body bytes: ${json.body.toString('hex')}`);
    assert.is(json.length, json.body.length);
    const text = await raw(port, '/text');
    assert.ok(isUtf8Of(text.body, LATIN1), `text body bytes: ${text.body.toString('hex')}`);
    assert.is(text.length, text.body.length);
    const error = await raw(port, '/error');
    assert.is(error.status, 404);
    assert.is(JSON.parse(error.body.toString('utf8')).error.message, `${LATIN1}: not found; check the id`);
    assert.ok(isUtf8Of(error.body, error.body.toString('utf8')), 'valid UTF-8');
    const refused = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/refused`);
      ws.on('unexpected-response', (_req, res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
      });
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('error', () => {});
    });
    assert.is(refused.status, 403);
    assert.ok(isUtf8Of(refused.body, refused.body.toString('utf8')), `refusal bytes: ${refused.body.toString('hex')}`);
    assert.is(JSON.parse(refused.body.toString('utf8')).error.message, `${LATIN1}: this origin may not connect`);
  } finally {
    await http.close();
  }
});

test('socket frames and close reasons are UTF-8; a long reason is cut to 123 bytes at a character boundary', async () => {
  const longReason = `${LATIN1} ${'ä'.repeat(80)}`;
  const ep: SocketEndpoint<object> = {
    path: '/s',
    upgrade: () => ({}),
    open(conn) {
      conn.send(LATIN1);
      conn.send(JSON.stringify({ t: 'delta', delta: WIDE }));
    },
    message(conn, data) { conn.close(4000, String(data) === 'long' ? longReason : LATIN1); },
    close() {},
  };
  const http = createHttpServer({ logger: createLogger('silent'), router: new Router(), bodyLimitBytes: 1024, trustProxy: 0, sockets: [ep] });
  const port = await http.listen('127.0.0.1', 0);
  const visit = (ask: string) => new Promise<{ frames: Buffer[]; code: number; reason: Buffer; error: string | null }>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/s`);
    const frames: Buffer[] = [];
    let error: string | null = null;
    ws.on('message', (m: Buffer) => { frames.push(m); if (frames.length === 2) ws.send(ask); });
    ws.on('error', (e) => { error = e.message; });
    ws.on('close', (code, reason) => resolve({ frames, code, reason, error }));
  });
  try {
    const short = await visit('short');
    // ws closes with 1006 ("invalid UTF-8 sequence") when a text frame is not UTF-8.
    assert.is(short.error, null);
    assert.is(short.frames.length, 2);
    assert.ok(isUtf8Of(short.frames[0], LATIN1), `frame bytes: ${short.frames[0]?.toString('hex')}`);
    assert.ok(isUtf8Of(short.frames[1], JSON.stringify({ t: 'delta', delta: WIDE })));
    assert.is(short.code, 4000);
    assert.ok(isUtf8Of(short.reason, LATIN1), `reason bytes: ${short.reason.toString('hex')}`);
    const long = await visit('long');
    assert.is(long.error, null);
    assert.is(long.code, 4000);
    assert.ok(long.reason.length <= 123 && long.reason.length >= 121, `${long.reason.length} bytes`);
    assert.ok(longReason.startsWith(long.reason.toString('utf8')), 'cut at a character boundary, never mid-character');
  } finally {
    await http.close();
  }
});

test.run();
