/**
 * The engine socket's read path alone, in figures the machine's load does not change (issue 19): young-generation
 * bytes V8 allocated and CPU time per audio delta read, with the deltas read in front of ws
 * (src/providers/voice-ws-frames.ts) and with ws parsing every frame (--no-ahead), in the same process and run.
 *
 * N client sockets (ws, the engine's options) to a local ws server. Each round the server writes one
 * response.output_audio.delta frame (20 ms of 24 kHz PCM16 in base64, as OpenAI writes it) to every socket, then
 * waits for all of them to arrive: each TCP read holds one whole frame, as on a server that keeps up. The writes'
 * own garbage is the same in both modes, so the difference between the modes is the read path's.
 *
 *   npx tsx bench/voice-read.ts [sockets=200] [rounds=500] [--heap=<file>]
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import WebSocket, { WebSocketServer } from 'ws';
import { audioDeltaReads, takeAudioDeltas } from '../src/providers/realtime-openai-audio.js';
import { gcAccount } from './gc-account.js';

const [socketsArg, roundsArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const SOCKETS = Math.max(1, Math.min(Number(socketsArg) || 200, 2000));
const ROUNDS = Math.max(10, Math.min(Number(roundsArg) || 500, 100_000));

const pcm = Buffer.alloc(960);
for (let i = 0; i < pcm.length; i += 2) pcm.writeInt16LE(Math.round(8000 * Math.sin(i / 12)), i);
const payload = Buffer.from(`{"type":"response.output_audio.delta","event_id":"event_0001","response_id":"resp_0001","item_id":"item_0001","output_index":0,"content_index":0,"delta":"${pcm.toString('base64')}"}`);
const frame = Buffer.concat([Buffer.from([0x81, 126, payload.length >> 8, payload.length & 255]), payload]);

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
await new Promise((r) => wss.once('listening', r));
const raws: Array<{ write(b: Buffer): boolean }> = [];
wss.on('connection', (ws) => raws.push((ws as unknown as { _socket: { write(b: Buffer): boolean } })._socket));
const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;

let got = 0;
let roundDone: (() => void) | null = null;
const clients = await Promise.all(Array.from({ length: SOCKETS }, () => new Promise<WebSocket>((resolve, reject) => {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  // The SDK's listener stands in: it would parse whatever reaches it.
  ws.on('message', (data: Buffer) => { JSON.parse(data.toString()); });
  takeAudioDeltas(ws, () => true, (_id, audio) => { if (audio.length === pcm.length && ++got === SOCKETS) roundDone?.(); });
  ws.once('open', () => resolve(ws));
  ws.once('error', reject);
})));
while (raws.length < SOCKETS) await new Promise((r) => setTimeout(r, 10));

async function rounds(n: number): Promise<void> {
  for (let r = 0; r < n; r++) {
    got = 0;
    const done = new Promise<void>((resolve) => { roundDone = resolve; });
    for (const raw of raws) raw.write(frame);
    await done;
  }
}

/** Runs `ROUNDS` rounds in one mode; young bytes and CPU µs per delta read, scavenges per 10,000. */
async function measure(ahead: boolean) {
  audioDeltaReads.aheadOn = ahead;
  await rounds(50);
  const reads0 = { ...audioDeltaReads };
  const gcs = gcAccount();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  gcs.start();
  await rounds(ROUNDS);
  gcs.pause();
  const cpu = process.cpuUsage(cpu0);
  const g = gcs.result();
  const n = ROUNDS * SOCKETS;
  return {
    mode: ahead ? 'ahead of ws' : 'ws (--no-ahead)',
    bytes: g.youngAllocated / n, cpuUs: (cpu.user + cpu.system) / n, scavenges: (g.scavenges * 10_000) / n,
    survived: g.survivedMean, wallMs: performance.now() - t0, ahead: audioDeltaReads.ahead - reads0.ahead, ws: audioDeltaReads.ws - reads0.ws,
  };
}

/** --heap=<file>: a sampling heap profile of every allocation of one more ahead-of-ws run (bench/heap-top.mjs <file>). */
const heapFile = process.argv.find((a) => a.startsWith('--heap='))?.slice(7);
console.log(`voice-read: ${SOCKETS} engine sockets, ${ROUNDS} rounds of one 20 ms audio delta each (${frame.length} bytes a frame); both directions of the loopback in this process`);
console.log('mode | young bytes per delta (read + write) | CPU µs per delta | scavenges per 10,000 | survivors per scavenge KB | read ahead / through ws');
for (const ahead of [false, true, false, true]) {
  const m = await measure(ahead);
  console.log(`${m.mode} | ${m.bytes.toFixed(0)} | ${m.cpuUs.toFixed(1)} | ${m.scavenges.toFixed(1)} | ${(m.survived / 1024).toFixed(1)} | ${m.ahead} / ${m.ws}`);
}
if (heapFile) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
  await measure(true);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  writeFileSync(heapFile, JSON.stringify(profile));
}
for (const c of clients) c.terminate();
await new Promise((r) => wss.close(r));
