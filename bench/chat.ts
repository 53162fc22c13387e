/**
 * Chat benchmark: N concurrent widget sockets, each holding TURNS turns with a bot whose brain is a fake
 * streaming provider (OpenAI SSE on loopback), against a baseline measured in the same run.
 *
 *   server-added latency = first delta frame at the widget - first token written by the provider
 *   baseline             = first chunk at a client reading the provider directly - first token written
 *
 * Also: turns per second with storage (embedded store), and event-loop delay p99 during the chat run
 * (server, provider and clients share this one process, so the delay is an upper bound for the server).
 * Loopback only; every visitor gets its own X-Forwarded-For address (TRUST_PROXY) so per-IP limits hold.
 *
 *   npx tsx bench/chat.ts [sockets=1000] [turns=3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { BotConfigSchema } from '../src/bots/config/index.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/log.js';
import { sealSecret } from '../src/security/secret-box.js';
import { startServer } from '../src/server.js';
import { setupOwner } from '../test/helpers/auth.js';

const N = Math.max(1, Math.min(Number(process.argv[2]) || 1000, 5000));
const TURNS = Math.max(1, Math.min(Number(process.argv[3]) || 3, 50));
const CHUNKS = 12;
const CHUNK_GAP_MS = 2;

// --- the fake provider: records when it wrote the first token of each answer, by the tag in the question.
const firstTokenAt = new Map<string, number>();
const fake = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    const body = JSON.parse(raw || '{}');
    const last = [...(body.messages ?? [])].reverse().find((m: { role: string }) => m.role === 'user');
    const tag = /#(\w+)/.exec(typeof last?.content === 'string' ? last.content : '')?.[1] ?? 'none';
    void stream(res, tag, body.model ?? 'gpt-4o-mini');
  });
});
async function stream(res: ServerResponse, tag: string, model: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta: object, finish: string | null = null, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  for (let i = 0; i < CHUNKS; i++) {
    if (i === 0) firstTokenAt.set(tag, performance.now());
    chunk({ content: `word${i} ` });
    await new Promise((r) => setTimeout(r, CHUNK_GAP_MS));
  }
  chunk({}, 'stop');
  res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: { prompt_tokens: 50, completion_tokens: CHUNKS } })}\n\n`);
  res.end('data: [DONE]\n\n');
}
await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN; };

// --- baseline: N concurrent clients reading the provider directly, TURNS requests each.
async function baseline(): Promise<number[]> {
  const lat: number[] = [];
  let seq = 0;
  await Promise.all(Array.from({ length: N }, async () => {
    for (let t = 0; t < TURNS; t++) {
      const tag = `b${seq++}`;
      const res = await fetch(`${fakeUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: `#${tag}` }] }) });
      const reader = res.body!.getReader();
      let first = true;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (first && value && new TextDecoder().decode(value).includes('"content"')) { lat.push(performance.now() - firstTokenAt.get(tag)!); first = false; }
      }
    }
  }));
  return lat;
}

// --- the real path: widget socket -> conversation actor -> provider adapter -> store -> socket.
async function chat(): Promise<{ lat: number[]; turnsPerSec: number; loopP99: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-chat-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ALLOW_PRIVATE_NETWORK: 'true', TRUST_PROXY: 'true', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789' });
  const server = await startServer(config, { logger: createLogger('silent') });
  const lat: number[] = [];
  let turns = 0;
  let elapsed = 0;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  try {
    const testServer = { ...server, dataDir, fetch: (p: string, i?: RequestInit) => fetch(server.url + p, i),
      async request(method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}) {
        const res = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json', ...o.headers }, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
        const text = await res.text();
        return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
      }, stop: async () => {} };
    const owner = await setupOwner(testServer as never);
    const { app } = server;
    const providerId = 'prov_bench';
    await app.store.collection('providers').insertOne({ _id: providerId, workspaceId: owner.workspaceId, kind: 'openai', name: 'fake', baseUrl: `${fakeUrl}/v1`, apiKeySealed: sealSecret('k', app.secretKey, providerId), createdAt: 0 } as never);
    const cfg = BotConfigSchema.parse({ brain: { connectionId: providerId, model: 'gpt-4o-mini' }, security: { rateLimits: { messagesPerMinute: 600 } } });
    await app.store.collection('bots').insertOne({ _id: 'bot_bench', workspaceId: owner.workspaceId, name: 'bench', status: 'running', draft: cfg, revision: 1, published: { version: 1, config: cfg, publishedAt: 0 }, createdAt: 0, updatedAt: 0 } as never);

    const sockets = await Promise.all(Array.from({ length: N }, (_, i) => new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}/widget/v1/chat?botId=bot_bench`, { headers: { 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } });
      ws.once('message', () => resolve(ws));
      ws.once('error', reject);
    })));
    loop.enable();
    const start = performance.now();
    await Promise.all(sockets.map((ws, i) => new Promise<void>((resolve, reject) => {
      let t = 0;
      let sawDelta = false;
      const ask = () => { sawDelta = false; ws.send(JSON.stringify({ t: 'message', text: `question #s${i}x${t}` })); };
      ws.on('message', (data) => {
        const f = JSON.parse(String(data));
        if (f.t === 'delta' && !sawDelta) { sawDelta = true; lat.push(performance.now() - firstTokenAt.get(`s${i}x${t}`)!); }
        else if (f.t === 'message' && f.message.role === 'assistant') { turns++; if (++t === TURNS) resolve(); else ask(); }
        else if (f.t === 'error') reject(new Error(`socket ${i}: ${f.code} ${f.message}`));
      });
      ask();
    })));
    elapsed = (performance.now() - start) / 1000;
    loop.disable();
    for (const ws of sockets) ws.close();
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { lat, turnsPerSec: turns / elapsed, loopP99: loop.percentile(99) / 1e6 };
}

const base = await baseline();
const run = await chat();
fake.closeAllConnections();
fake.close();
const b50 = pct(base, 0.5), b99 = pct(base, 0.99), c50 = pct(run.lat, 0.5), c99 = pct(run.lat, 0.99);
const f = (x: number) => x.toFixed(2);
console.log(`chat bench: ${N} sockets x ${TURNS} turns, ${CHUNKS} chunks per reply`);
console.log(`baseline (client -> provider directly): first token latency p50 ${f(b50)} ms, p99 ${f(b99)} ms`);
console.log(`through the server:                      first delta latency p50 ${f(c50)} ms, p99 ${f(c99)} ms`);
console.log(`server-added latency:                    p50 ${f(c50 - b50)} ms, p99 ${f(c99 - b99)} ms (target p99 < 5 ms at 1000 streams)`);
console.log(`turns per second with storage: ${run.turnsPerSec.toFixed(1)}; event-loop delay p99 ${f(run.loopP99)} ms (target < 10 ms; shared with clients and provider)`);
