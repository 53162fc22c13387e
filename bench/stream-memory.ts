/**
 * Memory per reply in flight (issue 5): what the server's heap holds for each reply that is streaming, against
 * the same server with the same visitors idle (the baseline, measured in the same run). What a reply holds while
 * it streams is what V8's scavenges copy and promote, so it sets the length of the GC pauses under load.
 *
 * N visitors each finish one turn (so conversations, caches and provider connections exist), then all ask again;
 * once every reply has sent its first delta (the fake provider then waits STALL ms before the next chunk), the
 * server's heap is measured after a full GC, and a sampling heap profile shows by allocation site what the
 * replies hold (`node bench/heap-top.mjs bench/.prof/stream-memory.heapprofile`).
 *
 *   npx tsx bench/stream-memory.ts [visitors=200]
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { buildServerForBench } from './build.js';
import { startChild } from './child.js';

const N = Math.max(1, Math.min(Number(process.argv[2]) || 200, 2000));
const STALL_MS = 4000;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await buildServerForBench();
// Replies of 2 chunks STALL_MS apart: after the first delta each reply is in flight, waiting for the next chunk.
const fake = await startChild('chat-fake.ts', ['2', String(STALL_MS)]);
const server = await startChild('chat-server.ts', [`http://127.0.0.1:${fake.ready.port}/v1`], ['--expose-gc'], true);
try {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < N; i++) {
    sockets.push(await new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.ready.port}/widget/v1/chat?botId=${server.ready.botId}`, { headers: { 'x-forwarded-for': `10.7.${i >> 8}.${i & 255}` } });
      ws.once('message', () => resolve(ws));
      ws.once('error', reject);
    }));
  }
  let deltas = 0, replies = 0;
  for (const ws of sockets) ws.on('message', (d) => { const t = String(d); if (t.startsWith('{"t":"delta"')) deltas++; else if (t.includes('"role":"assistant"')) replies++; });
  const until = async (ok: () => boolean) => { while (!ok()) await new Promise((r) => setTimeout(r, 50)); };
  const askAll = () => { for (const ws of sockets) ws.send(JSON.stringify({ t: 'message', text: 'hello there' })); };

  askAll();
  await until(() => replies === N);
  await new Promise((r) => setTimeout(r, 500));
  const idle = await server.call<{ heapUsed: number }>('heapUsed');
  await server.call('liveSampleStart');
  deltas = 0;
  askAll();
  await until(() => deltas >= N);
  const busy = await server.call<{ heapUsed: number }>('heapUsed');
  mkdirSync(join(root, 'bench/.prof'), { recursive: true });
  await server.call(`liveSampleStop ${join(root, 'bench/.prof/stream-memory.heapprofile')}`);
  const per = (busy.heapUsed - idle.heapUsed) / N;
  console.log('visitors | heap with visitors idle MB | heap with every reply streaming MB | per reply in flight KB');
  console.log(`${String(N).padStart(8)} | ${(idle.heapUsed / 1e6).toFixed(1)} | ${(busy.heapUsed / 1e6).toFixed(1)} | ${(per / 1024).toFixed(1)}`);
  console.log('by allocation site: node bench/heap-top.mjs bench/.prof/stream-memory.heapprofile');
  for (const ws of sockets) ws.terminate();
} finally {
  server.proc.kill(); fake.proc.kill();
}
