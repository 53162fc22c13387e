/**
 * Memory per idle widget chat socket (issue 27): N widget sockets open on the real server (welcomed with their
 * ready frame, then silent), against a baseline measured in the same run: N sockets open on a bare
 * uWebSockets.js server (bench/bare-uws.ts) that sends one frame on open. Twice: all sockets of one returning
 * visitor (the socket alone), and a new visitor on each (the socket and the visitor record stored for it).
 * Each server runs built, with npm start's Node flags and --expose-gc, in a fresh process per case; memory is
 * read after a full GC before and after the sockets open.
 *
 *   npx tsx bench/idle-sockets.ts [sockets=5000] [--heap-sample] [--heap-diff] [--tsx]
 *   --heap-diff    heap snapshots of the server before and after the returning visitor's sockets open
 *                  (bench/.prof/idle-sockets-{before,after}.heapsnapshot): what the heap holds more of, per socket,
 *                  by constructor: `node bench/heap-diff.mjs <before> <after> 40 <sockets>`
 *   --heap-sample  writes a sampling heap profile of what opening the sockets left alive on the server
 *                  (bench/.prof/idle-sockets.heapprofile; summarise with `node bench/heap-top.mjs <file>`)
 *
 * RSS is what the operator pays; heap and external show where it went. Results are kept in docs/performance.md
 * (REST, idle sockets and webhooks).
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { buildPrivately, SERVER_ENTRIES } from './build.js';
import { startChild, type Child } from './child.js';

const N = Math.max(100, Math.min(Number(process.argv.slice(2).find((a) => !a.startsWith('--'))) || 5000, 20_000));
const SAMPLE = process.argv.includes('--heap-sample');
const DIFF = process.argv.includes('--heap-diff');
const TSX = process.argv.includes('--tsx');
const here = dirname(fileURLToPath(import.meta.url));
const SETTLE_MS = 1000;
const WARM = 100;

type Mem = { rss: number; heapUsed: number; heapTotal: number; external: number };
const KEYS = ['rss', 'heapUsed', 'heapTotal', 'external'] as const;

/** Opens n sockets, 50 at a time; each counts as open once its first frame arrived. */
async function openSockets(url: (i: number) => string, headers: (i: number) => Record<string, string>, n = N): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  const one = (i: number) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url(i), { perMessageDeflate: false, headers: headers(i) });
    ws.once('message', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`socket ${i} refused: ${res.statusCode}`)));
  });
  for (let i = 0; i < n; i += 50) out.push(...await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => one(i + k))));
  return out;
}

async function measure(server: Child, open: () => Promise<WebSocket[]>, snapshots?: string): Promise<Mem> {
  const before = await server.call<Mem>('mem');
  if (snapshots) await server.call(`heapSnapshot ${snapshots}-before.heapsnapshot`);
  const sockets = await open();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const after = await server.call<Mem>('mem');
  if (snapshots) await server.call(`heapSnapshot ${snapshots}-after.heapsnapshot`);
  for (const ws of sockets) ws.terminate();
  return Object.fromEntries(KEYS.map((k) => [k, (after[k] - before[k]) / N])) as Mem;
}

const built = TSX ? false : await buildPrivately([...SERVER_ENTRIES, 'bench/bare-uws.ts']);
const children = new Set<Child>();
const startServer = async () => {
  const c = await startChild('chat-server.ts', ['http://127.0.0.1:9/v1', '--env=production', `--log=${process.env.BENCH_SERVER_LOG ? 'warn' : 'silent'}`], ['--expose-gc'], built);
  children.add(c);
  return c;
};
const quit = (c: Child) => new Promise<void>((r) => { children.delete(c); c.proc.once('exit', () => r()); c.proc.send({ cmd: 'quit' }); });
const chatUrl = (server: Child, i: number, token = '') => `ws://127.0.0.1:${server.ready.port}/widget/v1/chat?botId=${server.ready.botId}${token && `&visitorToken=${token}`}&pageUrl=${encodeURIComponent(`https://shop.example.com/products/item-${i}?ref=home`)}&pageTitle=Item%20${i}`;
/** Each socket from its own address (the per-address connection limit), as visitors arrive. */
const visitorHeaders = (i: number) => ({ 'x-forwarded-for': `10.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`, origin: 'https://shop.example.com' });
/** Warm-up (not counted): lazy imports, first prepared statements, JIT. Kept small: memory freed by closed
 * sockets stays with the process and would be reused by the measured ones. */
async function warmUp(open: (n: number) => Promise<WebSocket[]>): Promise<void> {
  for (const ws of await open(WARM)) ws.terminate();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
}

const bare = await startChild('bare-uws.ts', [], ['--expose-gc'], built);
const rows: Array<[string, Mem]> = [];
try {
  const bareOpen = (n = N) => openSockets(() => `ws://127.0.0.1:${bare.ready.port}/`, () => ({}), n);
  await warmUp(bareOpen);
  rows.push(['bare uWS (one frame on open)', await measure(bare, bareOpen)]);

  // One visitor on every socket (its token from the warm-up): what an open socket costs, nothing stored.
  let server = await startServer();
  let token = '';
  await warmUp(async (n) => {
    const sockets = await openSockets((i) => chatUrl(server, i), (i) => ({ 'x-forwarded-for': `10.200.0.${i & 255}` }), n);
    token = await new Promise<string>((resolve) => {
      const probe = new WebSocket(chatUrl(server, 0), { headers: { 'x-forwarded-for': '10.201.0.1' } });
      probe.once('message', (d) => { resolve(JSON.parse(String(d)).visitorToken); probe.terminate(); });
    });
    return sockets;
  });
  if (DIFF) mkdirSync(join(here, '.prof'), { recursive: true });
  rows.push(['widget chat socket, one returning visitor', await measure(server, () => openSockets((i) => chatUrl(server, i, token), visitorHeaders), DIFF ? join(here, '.prof/idle-sockets') : undefined)]);
  await quit(server);

  // A new visitor on every socket: the socket and the visitor record the server stores for it.
  server = await startServer();
  await warmUp((n) => openSockets((i) => chatUrl(server, i), (i) => ({ 'x-forwarded-for': `10.200.0.${i & 255}` }), n));
  if (SAMPLE) await server.call('liveSampleStart');
  rows.push(['widget chat socket, a new visitor each', await measure(server, () => openSockets((i) => chatUrl(server, i), visitorHeaders))]);
  if (SAMPLE) {
    mkdirSync(join(here, '.prof'), { recursive: true });
    await server.call(`liveSampleStop ${join(here, '.prof/idle-sockets.heapprofile')}`);
  }
  await quit(server);

  const kb = (b: number) => (b / 1024).toFixed(2);
  console.log(`idle sockets: ${N} sockets each, opened 50 at a time, measured after a full GC ${SETTLE_MS} ms after the last opened; a fresh server process each`);
  console.log('server | RSS KB per socket | ratio to bare RSS | heap used KB | heap committed KB | external KB');
  for (const [name, m] of rows) console.log(`${name} | ${kb(m.rss)} | ${(m.rss / rows[0][1].rss).toFixed(1)}x | ${kb(m.heapUsed)} | ${kb(m.heapTotal)} | ${kb(m.external)}`);
  console.log('target (issue 27): <= 4 KB RSS per idle widget socket');
  if (SAMPLE) console.log('by allocation site (new visitors): node bench/heap-top.mjs bench/.prof/idle-sockets.heapprofile');
  if (DIFF) console.log(`per socket by constructor: node bench/heap-diff.mjs bench/.prof/idle-sockets-before.heapsnapshot bench/.prof/idle-sockets-after.heapsnapshot 40 ${N}`);
} finally {
  // A server still running here is one whose case failed: it goes too.
  await Promise.all([bare, ...children].map(quit));
}
