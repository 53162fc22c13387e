/**
 * Webhook delivery throughput against a loopback receiver: N events through the real path (bus -> durable
 * delivery records -> scheduler -> guarded client; one endpoint, so at most its share of slots in flight), against a
 * baseline measured in the same run: N signed POSTs sent straight with fetch at the same concurrency, without the
 * queue or the store.
 *
 *   npx tsx bench/webhooks.ts [events=2000] [--publishers=1]
 *
 * With one publisher the queue's rate is bounded by storing the events one after another (each publish waits
 * for its write); --publishers=8 publishes as eight conversations would, so the rate is the delivery path's.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/index.js';
import { MAX_IN_FLIGHT_PER_ENDPOINT as IN_FLIGHT } from '../src/events/webhooks/constants.js';
import { signatureHeader, webhookBody } from '../src/events/webhooks/index.js';
import { createLogger } from '../src/kernel/log.js';
import { newId } from '../src/store/ids.js';
import { startServer } from '../src/server.js';

const N = Math.min(Number(process.argv[2]) || 2000, 20_000);
/** Events are published by this many loops at once (default 1: one after another, each stored before the next). */
const PUBLISHERS = Math.max(1, Math.min(Number(process.argv.find((a) => a.startsWith('--publishers='))?.slice(13)) || 1, 64));
const WS = 'ws_bench';

let received = 0;
let onCount: (() => void) | null = null;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    received++;
    onCount?.();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const waitFor = (n: number) => new Promise<void>((resolve) => {
  if (received >= n) return resolve();
  onCount = () => { if (received >= n) { onCount = null; resolve(); } };
});

async function baseline(): Promise<number> {
  received = 0;
  const secret = 'whsec_bench';
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < N) {
      next++;
      const event = { _id: newId('evt'), type: 'conversation.started', createdAt: Date.now(), data: { workspaceId: WS, botId: 'bot_1', conversationId: 'conv_1', visitorId: 'vis_1' } };
      const body = webhookBody(event);
      const res = await fetch(url, { method: 'POST', body, headers: {
        'Content-Type': 'application/json', 'User-Agent': 'ServiceChat-Webhooks/1', 'Service-Event': event.type,
        'Service-Event-Id': event._id, 'Service-Signature': signatureHeader(secret, Math.floor(Date.now() / 1000), body),
      } });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return N / ((performance.now() - start) / 1000);
}

async function queued(): Promise<{ rate: number; p50: number; p99: number }> {
  received = 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-webhooks-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ALLOW_PRIVATE_NETWORK: 'true', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123' });
  const server = await startServer(config, { logger: createLogger('silent') });
  try {
    const hooks = server.services.webhooks;
    const { id } = await hooks.endpoints.add(WS, { url, events: ['conversation.started'] });
    const start = performance.now();
    const done = waitFor(N);
    // PUBLISHERS loops publish at once, each awaiting its own publish, as that many conversations would.
    let next = 0;
    await Promise.all(Array.from({ length: PUBLISHERS }, async () => {
      while (next < N) {
        const i = next++;
        await server.app.events.publish(WS, 'conversation.started', { botId: 'bot_1', conversationId: `conv_${i}`, visitorId: 'vis_1' });
      }
    }));
    await done;
    await hooks.dispatcher.settled();
    const seconds = (performance.now() - start) / 1000;
    const log = (await hooks.endpoints.deliveries(WS, id)).items;
    const lag = log.map((d) => (d.lastAttemptAt ?? 0) - d.createdAt).sort((a, b) => a - b);
    return { rate: N / seconds, p50: lag[Math.floor(lag.length / 2)], p99: lag[Math.floor(lag.length * 0.99)] };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const base = await baseline();
const q = await queued();
process.stdout.write([
  `webhooks: ${N} events (${PUBLISHERS} publisher${PUBLISHERS > 1 ? 's' : ''}), ${IN_FLIGHT} in flight (one endpoint), loopback receiver`,
  `  baseline (signed fetch POSTs, no queue): ${base.toFixed(0)} req/s`,
  `  delivery queue (store + scheduler + guarded client): ${q.rate.toFixed(0)} deliveries/s`,
  `  queue lag (event stored -> try made, last 100): p50 ${q.p50} ms, p99 ${q.p99} ms`,
  `  ratio queue/baseline: ${(q.rate / base).toFixed(2)}`,
].join('\n') + '\n');
receiver.close();
