/**
 * What compression costs and saves: JSON answers (brotli q4 / gzip 5 as the server sends them, per call) and the
 * browser bundles (precompressed at build time, brotli q11 / gzip 9). Run: npx tsx bench/compression.ts
 */
import { readFileSync, existsSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { compressJson } from '../src/http/compress.js';

/** Microseconds per call, over at least `ms` and at least one call. */
function time(fn: () => void, ms = 300): number {
  let n = 0;
  const start = performance.now();
  do { fn(); n++; } while (performance.now() - start < ms);
  return ((performance.now() - start) * 1000) / n;
}

// JSON shaped like a list answer: conversations with a few fields each.
const row = (i: number) => ({ id: `conv_${i.toString(36).padStart(10, '0')}`, status: i % 3 ? 'open' : 'closed', visitor: { name: `Visitor ${i}`, country: 'NO' }, lastMessage: 'Thanks, that answers my question about delivery times.', updatedAt: 1763971200000 + i * 1000 });
for (const rows of [8, 80, 800]) {
  const body = JSON.stringify({ items: Array.from({ length: rows }, (_, i) => row(i)), next: null });
  const br = compressJson(body, 'application/json', 'br').bytes.length;
  const gz = compressJson(body, 'application/json', 'gzip').bytes.length;
  const tBr = time(() => compressJson(body, 'application/json', 'br'));
  const tGz = time(() => compressJson(body, 'application/json', 'gzip'));
  const tJson = time(() => JSON.stringify(JSON.parse(body)));
  console.log(`json ${body.length} B: br ${br} B in ${tBr.toFixed(0)} µs, gzip ${gz} B in ${tGz.toFixed(0)} µs (stringify ${tJson.toFixed(0)} µs)`);
}

for (const f of ['dist/public/widget/loader.js', 'dist/public/widget/chat.js', 'dist/public/widget/voice.js', 'node_modules/swagger-ui-dist/swagger-ui-bundle.js']) {
  if (!existsSync(f)) continue;
  const data = readFileSync(f);
  const q = (level: number) => () => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: level } });
  const b11 = q(11)().length;
  const g9 = gzipSync(data, { level: 9 }).length;
  console.log(`${f}: ${data.length} B, gzip9 ${g9} B, br11 ${b11} B (br11 ${(time(q(11), 200) / 1000).toFixed(0)} ms, br5 ${(time(q(5), 200) / 1000).toFixed(1)} ms once)`);
}
