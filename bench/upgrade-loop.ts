/**
 * Issue 37's bound: the server's event loop while 500 widget sockets connect (each: upgrade, visitor, resumable
 * conversation, `ready`) and, at the same time, a 20,000-passage document's passages are written to the embedded
 * store as the indexer writes them (one replaceMany, then again, until the sockets are all ready). Target: the
 * loop's delay max at most 20 ms. The same writes are then timed alone, with no socket, for as long (the baseline:
 * what the sockets add is the difference). The server runs in a child process (this file with `server`), so the 500
 * clients' own work is not on the measured loop.
 *
 *   npx tsx bench/upgrade-loop.ts [sockets=500] [passages=20000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startChild } from './child.js';
import { loopDelay } from './loop-delay.js';

const [SOCKETS = 500, PASSAGES = 20_000] = process.argv.slice(process.argv[2] === 'server' ? 3 : 2).map(Number);

if (process.argv[2] === 'server') await serve();
else await drive();

async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config/index.js');
  const { createLogger } = await import('../src/kernel/log.js');
  const { startServer } = await import('../src/server.js');
  const { knowledgeCollections } = await import('../src/knowledge/collections.js');
  const { seedBenchBot, BENCH_BOT_ID } = await import('./seed-bot.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-upgrade-'));
  const config = loadConfig({
    PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ALLOW_PRIVATE_NETWORK: 'true',
    TRUST_PROXY: 'true', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
  });
  const server = await startServer(config, { logger: createLogger('silent') });
  const owner = await seedBenchBot(server, dataDir, { fakeBaseUrl: 'http://127.0.0.1:9', apiKey: 'k', config: (connectionId) => ({ brain: { connectionId, model: 'gpt-4o-mini' } }) });
  const chunks = knowledgeCollections(server.app).chunks;
  const docId = 'kdoc_bench';
  const records = (round: number) => Array.from({ length: PASSAGES }, (_, index) => ({
    _id: `kch_bench_${String(index).padStart(5, '0')}`, workspaceId: owner.workspaceId, sourceId: 'ksrc_bench', documentId: docId,
    index, heading: null, title: 'bench', url: null, text: `round ${round} `.padEnd(1000, 'lorem ipsum '),
  }));
  await chunks.replaceMany(records(0) as never);
  const loop = loopDelay();
  let writing = false;
  let writes = 0;
  process.on('message', async (m: { cmd: string }) => {
    if (m.cmd === 'start') {
      loop.start();
      writing = true;
      void (async () => { for (let r = 1; writing; r++) { await chunks.replaceMany(records(r) as never); writes++; } })();
      process.send!({ ok: true });
    } else if (m.cmd === 'stop') {
      writing = false;
      process.send!({ ...loop.stop(), writes });
      writes = 0;
    } else if (m.cmd === 'exit') {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  console.log(JSON.stringify({ url: server.url, botId: BENCH_BOT_ID }));
}

async function drive(): Promise<void> {
  const child = await startChild('upgrade-loop.ts', ['server', String(SOCKETS), String(PASSAGES)]);
  const { url, botId } = child.ready as { url: string; botId: string };
  const load0 = loadavg()[0];
  await child.call('start');
  const t0 = performance.now();
  const sockets: WebSocket[] = [];
  const failures: string[] = [];
  await Promise.all(Array.from({ length: SOCKETS }, (_, i) => new Promise<void>((resolve) => {
    // TRUST_PROXY: each socket comes from its own address, so the per-address connection limit is not what is measured.
    const ws = new WebSocket(`${url.replace('http', 'ws')}/widget/v1/chat?botId=${botId}`, { headers: { 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` } });
    sockets.push(ws);
    ws.on('message', (data) => { if (JSON.parse(String(data)).t === 'ready') resolve(); });
    ws.on('unexpected-response', (_req, res) => { failures.push(`HTTP ${res.statusCode}`); resolve(); });
    ws.on('close', (code) => { failures.push(`closed ${code}`); resolve(); });
    ws.on('error', () => { /* counted by close */ });
  })));
  const ms = performance.now() - t0;
  const delay = await child.call<{ p50: number; p99: number; max: number; writes: number }>('stop');
  const failed = [...failures];
  for (const ws of sockets) ws.terminate();
  // The baseline, in the same run: the same writes for as long, with no socket connecting.
  await new Promise((r) => setTimeout(r, 500));
  await child.call('start');
  await new Promise((r) => setTimeout(r, Math.max(ms, 2000)));
  const alone = await child.call<{ p50: number; p99: number; max: number; writes: number }>('stop');
  console.log(`${SOCKETS} widget sockets to ready in ${ms.toFixed(0)} ms while a ${PASSAGES.toLocaleString('en')}-passage document was written ${delay.writes} times${failed.length ? `; ${failed.length} failed (${[...new Set(failed)].join(', ')})` : ''}`);
  console.log(`  server event-loop delay: p50 ${delay.p50.toFixed(1)} ms, p99 ${delay.p99.toFixed(1)} ms, max ${delay.max.toFixed(1)} ms (bound: max <= 20 ms)`);
  console.log(`  the same writes alone for ${(Math.max(ms, 2000) / 1000).toFixed(1)} s (${alone.writes} writes, no socket): p50 ${alone.p50.toFixed(1)} ms, p99 ${alone.p99.toFixed(1)} ms, max ${alone.max.toFixed(1)} ms`);
  console.log(`  load average at the start ${load0.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)}`);
  child.proc.send({ cmd: 'exit' });
  await new Promise((r) => child.proc.once('exit', r));
}
