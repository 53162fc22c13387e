/**
 * The chat bench's fake streaming provider (OpenAI Chat Completions SSE), run in its own process so its work
 * does not sit on the server's or the clients' event loop. The first content token of every answer carries
 * the wall-clock time (ms, performance.timeOrigin + performance.now()) at which it was written: `@<ms> `.
 * Clients in another process compare it with their own receive time on the same machine clock.
 *
 *   node --import tsx bench/chat-fake.ts <chunks> <gapMs>   -> prints {"port":N} on stdout
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loopDelay } from './loop-delay.js';

const CHUNKS = Math.max(1, Number(process.argv[2]) || 12);
const GAP_MS = Math.max(0, Number(process.argv[3]) || 2);
const wallNow = () => performance.timeOrigin + performance.now();
const loop = loopDelay();

const server = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => { raw += c; });
  req.on('end', () => {
    let model = 'gpt-4o-mini';
    try { model = JSON.parse(raw || '{}').model ?? model; } catch { /* bench clients always send JSON */ }
    void stream(res, model);
  });
});

async function stream(res: ServerResponse, model: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const head = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":${JSON.stringify(model)},"choices":[`;
  const chunk = (content: string) => res.write(`${head}{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}\n\n`);
  for (let i = 0; i < CHUNKS; i++) {
    // Stamp taken right before the write of the first token.
    chunk(i === 0 ? `@${wallNow().toFixed(3)} ` : `word${i} `);
    if (GAP_MS) await new Promise((r) => setTimeout(r, GAP_MS));
  }
  res.write(`${head}{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
  res.write(`${head}],"usage":{"prompt_tokens":50,"completion_tokens":${CHUNKS}}}\n\n`);
  res.end('data: [DONE]\n\n');
}

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

// Commands from the parent over IPC: loop delay on demand, then quit.
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'loopStart') { loop.start(); process.send!({ ok: true }); }
  else if (m.cmd === 'loopStop') process.send!(loop.stop());
  else if (m.cmd === 'quit') { server.closeAllConnections(); server.close(() => process.exit(0)); }
});
