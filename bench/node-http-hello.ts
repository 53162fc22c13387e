/**
 * The other side of bench/http-front.ts: Node's own HTTP/1.1 server (node:http, which answers pipelined requests in
 * order) answering the same small JSON hello as bench/bare-uws.ts, in its own process with npm start's flags.
 * It is the most a Node HTTP/1.1 front in front of the real server could reach, before any work of ours.
 * Commands from the parent (IPC): `quit`.
 *
 *   node dist/bench/node-http-hello.js   -> prints {"port":N} on stdout
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const hello = JSON.stringify({ hello: 'world', ok: true });
const server = createServer((req, res) => {
  if (req.url !== '/hello') { res.writeHead(404).end(); return; }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(hello);
});
server.keepAliveTimeout = 120_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'quit') server.close(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
