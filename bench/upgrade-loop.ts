/**
 * Issue 37's bound: the server's event loop while 500 widget sockets connect (each: upgrade, visitor, resumable
 * conversation, `ready`) and, at the same time, a 20,000-passage document is indexed the way the product indexes
 * an upload: a Markdown file source, read and split into passages on the worker pool, its passages written to the
 * store, the lexical index and (here: no embedder, lexical search only) no vectors. The loop is measured over one
 * whole indexing run (a reindex) with the sockets connecting from its start. Target: the loop's delay max at most
 * 20 ms. The same indexing run is then measured alone, with no socket (the baseline: what the sockets add is the
 * difference); meanwhile the driver, idle, measures its own loop (the machine's floor: on a loaded machine every
 * process waits for a core). What a loaded machine does not stretch is reported too: the server's main thread's
 * time on a core between two turns of a 5 ms timer (bench/loop-cpu.ts), the length of its longest task. The server runs in a child process (this file with `server`), so the 500 clients' own
 * work is not on the measured loop; those clients stand for visitors on other machines and run at nice 19
 * (BENCH_CLIENT_NICE=0: at the server's priority), so on a small machine they do not hold a core the server wants.
 *
 *   npx tsx bench/upgrade-loop.ts [sockets=500] [passages=20000]
 *
 * BENCH_SERVER_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` or `--trace-gc`) are passed to the server's node.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startChild } from './child.js';
import { loopDelay } from './loop-delay.js';
import { loopCpu } from './loop-cpu.js';

const [SOCKETS = 500, PASSAGES = 20_000] = process.argv.slice(process.argv[2] === 'server' ? 3 : 2).map(Number);

if (process.argv[2] === 'server') await serve();
else await drive();

/** A Markdown document of `n` sections of about 950 characters each: one passage per section. */
function bigDocument(n: number): Buffer {
  const words = Array.from({ length: 4000 }, (_, i) => `w${(i * 2654435761 % 1e6).toString(36)}`);
  let seed = 1;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const parts: string[] = ['# Bench handbook\n'];
  for (let s = 0; s < n; s++) {
    let body = '';
    while (body.length < 900) body += `${words[Math.floor(next() * words.length)]} `;
    parts.push(`## Section ${s}\n\n${body.trim()}.\n`);
  }
  return Buffer.from(parts.join('\n'), 'utf8');
}

async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config/index.js');
  const { createLogger } = await import('../src/kernel/log.js');
  const { startServer } = await import('../src/server.js');
  const { knowledge } = await import('../src/knowledge/service.js');
  const { knowledgeSettings } = await import('../src/knowledge/settings.js');
  const { seedBenchBot, BENCH_BOT_ID } = await import('./seed-bot.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-upgrade-'));
  const config = loadConfig({
    PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ALLOW_PRIVATE_NETWORK: 'true',
    TRUST_PROXY: 'true', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789', UPLOAD_LIMIT_BYTES: String(100 * 1024 * 1024),
  });
  const server = await startServer(config, { logger: createLogger('silent') });
  const owner = await seedBenchBot(server, dataDir, { fakeBaseUrl: 'http://127.0.0.1:9', apiKey: 'k', config: (connectionId) => ({ brain: { connectionId, model: 'gpt-4o-mini' } }) });
  const { workspaceId } = owner;
  // No embedder (lexical search only): the bench measures the passages' way to the store and the lexical index.
  await knowledgeSettings(server.app).insertOne({ _id: workspaceId, workspaceId, embedding: null, updatedAt: 0 } as never);
  const service = knowledge(server.app);
  const file = bigDocument(PASSAGES);
  const indexed = async (sourceId: string) => {
    await service.runner.idle(sourceId);
    const s = await service.get(workspaceId, sourceId);
    if (s.status !== 'ready' || s.chunkCount !== PASSAGES) throw new Error(`the document was not indexed as expected: ${s.status}, ${s.chunkCount} passages, ${s.error}`);
  };
  const t0 = performance.now();
  const source = await service.upload(workspaceId, file, 'text/markdown', 'handbook.md');
  await indexed(source._id);
  const firstMs = performance.now() - t0;
  const loop = loopDelay();
  const cpu = loopCpu();
  let run: Promise<number> | null = null;
  process.on('message', async (m: { cmd: string }) => {
    if (m.cmd === 'start') {
      // One whole indexing run of the document is measured (a reindex: the product's path again, same passages).
      loop.start();
      cpu.start();
      const t = performance.now();
      run = service.reindex(workspaceId, source._id).then(() => indexed(source._id)).then(() => performance.now() - t);
      process.send!({ ok: true });
    } else if (m.cmd === 'stop') {
      const ms = await run!;
      process.send!({ ...loop.stop(), ms, cpu: cpu.stop() });
    } else if (m.cmd === 'exit') {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  console.log(JSON.stringify({ url: server.url, botId: BENCH_BOT_ID, firstMs, mb: file.length / 1e6 }));
}

async function drive(): Promise<void> {
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const load0 = loadavg()[0];
  const child = await startChild('upgrade-loop.ts', ['server', String(SOCKETS), String(PASSAGES)], flags);
  const { url, botId, firstMs, mb } = child.ready as { url: string; botId: string; firstMs: number; mb: number };
  console.log(`a ${(mb as number).toFixed(1)} MB Markdown upload, ${PASSAGES.toLocaleString('en')} passages: first indexed in ${(firstMs / 1000).toFixed(1)} s`);
  // The 500 clients stand for visitors on other machines: on this machine they run at the lowest CPU priority
  // (BENCH_CLIENT_NICE, default 19; 0 to share the cores equally), so a core the server wants is not theirs.
  const clientNice = Number(process.env.BENCH_CLIENT_NICE ?? 19);
  if (clientNice) setPriority(clientNice);
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
  type Delay = { p50: number; p99: number; max: number; ms: number; cpu?: { p99: number; max: number; maxWait: number } };
  const delay = await child.call<Delay>('stop');
  const failed = [...failures];
  for (const ws of sockets) ws.terminate();
  // The baseline, in the same run: the same indexing run with no socket connecting.
  await new Promise((r) => setTimeout(r, 500));
  // This process is idle meanwhile: its own loop delay is the machine's floor (a loaded machine delays any process).
  const idle = loopDelay();
  idle.start();
  await child.call('start');
  const alone = await child.call<Delay>('stop');
  const floor = idle.stop();
  const f = (d: Delay) => `p50 ${d.p50.toFixed(1)} ms, p99 ${d.p99.toFixed(1)} ms, max ${d.max.toFixed(1)} ms${d.cpu
    ? `; on a core between timer turns p99 ${d.cpu.p99.toFixed(1)} ms, max ${d.cpu.max.toFixed(1)} ms (waited for a core up to ${d.cpu.maxWait.toFixed(1)} ms)` : ''}`;
  console.log(`${SOCKETS} widget sockets to ready in ${ms.toFixed(0)} ms${failed.length ? `; ${failed.length} failed (${[...new Set(failed)].join(', ')})` : ''}, during a reindex of ${(delay.ms / 1000).toFixed(1)} s`);
  console.log(`  server event-loop delay over the reindex: ${f(delay)} (bound: max <= 20 ms)`);
  console.log(`  the same reindex alone (${(alone.ms / 1000).toFixed(1)} s, no socket): ${f(alone)}`);
  console.log(`  an idle process meanwhile (this one${clientNice ? `, at nice ${clientNice}` : ''}: the machine's floor): ${f({ ...floor, ms: 0 })}`);
  console.log(`  load average at the start ${load0.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)}`);
  child.proc.send({ cmd: 'exit' });
  await new Promise((r) => child.proc.once('exit', r));
}
