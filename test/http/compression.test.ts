/**
 * Compression and caching on the wire: widget, admin and docs files by content negotiation (brotli, gzip or
 * none) with long caches for content-hashed names, and JSON answers above the threshold. Raw node:http requests,
 * so the test sees the bytes and headers the server sent (fetch would undo the encoding).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { COMPRESS_MIN_BYTES } from '../../src/http/compress.js';
import { pickEncoding } from '../../src/http/static.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { built, type Bundle, type BundleSize } from '../helpers/built.js';

let server: TestServer;
let sizes: Record<Bundle, BundleSize>;

test.before(async () => {
  sizes = built().widget;
  server = await startTestServer();
});
test.after(async () => { await server?.stop(); });

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (r: { headers: Record<string, unknown>; body: Buffer }) =>
  r.headers['content-encoding'] === 'br' ? brotliDecompressSync(r.body) : r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body;

test('the chat bundle has a content-hashed name, is sent as brotli or gzip as the browser accepts, and cached for a year', async () => {
  assert.match(sizes.chat.file, /^chat\.[0-9a-f]{10}\.js$/);
  const plain = await get(`/static/widget/${sizes.chat.file}`);
  assert.is(plain.status, 200);
  assert.is(plain.headers['content-encoding'], undefined);
  assert.is(plain.body.length, sizes.chat.bytes);
  assert.is(plain.headers['cache-control'], 'public, max-age=31536000, immutable');

  const br = await get(`/static/widget/${sizes.chat.file}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
  assert.is(br.headers['content-encoding'], 'br');
  assert.match(String(br.headers.vary), 'Accept-Encoding');
  assert.ok(decode(br).equals(plain.body));
  assert.ok(br.body.length < sizes.chat.gzip, `br ${br.body.length} bytes, gzip ${sizes.chat.gzip}`);

  const gz = await get(`/static/widget/${sizes.chat.file}`, { 'accept-encoding': 'gzip' });
  assert.is(gz.headers['content-encoding'], 'gzip');
  assert.ok(decode(gz).equals(plain.body));
  const refused = await get(`/static/widget/${sizes.chat.file}`, { 'accept-encoding': 'br;q=0, gzip' });
  assert.is(refused.headers['content-encoding'], 'gzip');
  // Each encoding has its own ETag, so a cache never answers 304 with the wrong bytes.
  assert.is.not(br.headers.etag, gz.headers.etag);
  const again = await get(`/static/widget/${sizes.chat.file}`, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
  assert.is(again.status, 304);
});

test("the loader keeps its stable URL with a short cache, and names the hashed chat bundle it loads", async () => {
  const r = await get('/static/widget/loader.js', { 'accept-encoding': 'br' });
  assert.is(r.headers['cache-control'], 'public, max-age=300');
  assert.is(r.headers['content-encoding'], 'br');
  const code = decode(r).toString();
  assert.match(code, sizes.chat.file);
  console.log(`  loader ${sizes.loader.bytes} B, gzip ${sizes.loader.gzip}, br ${r.body.length}; chat ${sizes.chat.bytes} B, gzip ${sizes.chat.gzip}`);
});

test('the API reference files are compressed too', async () => {
  const r = await get('/api/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip, br' });
  assert.is(r.status, 200);
  assert.is(r.headers['content-encoding'], 'br');
  const full = decode(r);
  assert.ok(r.body.length < full.length / 3, `${full.length} -> ${r.body.length} bytes`);
});

test('a JSON answer above the threshold is compressed when accepted, a small one and an unasked one are not', async () => {
  const big = await get('/api/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
  assert.is(big.status, 200);
  assert.is(big.headers['content-encoding'], 'br');
  assert.match(String(big.headers['content-type']), 'application/json');
  const spec = JSON.parse(decode(big).toString());
  assert.ok(spec.openapi);
  const raw = await get('/api/openapi.json');
  assert.is(raw.headers['content-encoding'], undefined);
  assert.ok(big.body.length < raw.body.length / 4, `${raw.body.length} -> ${big.body.length} bytes`);
  const gz = await get('/api/openapi.json', { 'accept-encoding': 'gzip' });
  assert.is(gz.headers['content-encoding'], 'gzip');
  assert.equal(JSON.parse(decode(gz).toString()), spec);

  const small = await get('/healthz', { 'accept-encoding': 'gzip, br' });
  assert.ok(small.body.length < COMPRESS_MIN_BYTES);
  assert.is(small.headers['content-encoding'], undefined);
});

test('Accept-Encoding is read as browsers and proxies send it', () => {
  const both = { br: true, gz: true };
  assert.is(pickEncoding('gzip, deflate, br', both), 'br');
  assert.is(pickEncoding('GZIP', both), 'gzip');
  assert.is(pickEncoding('br;q=0, gzip;q=0.5', both), 'gzip');
  assert.is(pickEncoding('br;q=0.0,gzip;q=0', both), null);
  assert.is(pickEncoding('identity', both), null);
  assert.is(pickEncoding('deflate', both), null);
  assert.is(pickEncoding('br', { br: null, gz: true }), null);
});

test.run();
