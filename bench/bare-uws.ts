/**
 * The baseline server of bench/rest.ts and bench/idle-sockets.ts: bare uWebSockets.js with nothing of ours, in its
 * own process with npm start's Node flags, as the real server runs. `GET /hello` answers a small JSON object; any
 * path upgrades to a WebSocket that sends one frame on open and then idles (pings on, as our sockets have).
 * Commands from the parent (IPC): `mem` (memory after a full GC; run with --expose-gc), `quit`.
 *
 *   node dist/bench/bare-uws.js   -> prints {"port":N} on stdout
 */
import uWS from 'uWebSockets.js';

const hello = JSON.stringify({ hello: 'world', ok: true });
let open = 0;
const app = uWS.App()
  .get('/hello', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/json; charset=utf-8').end(hello));
  })
  .ws('/*', {
    idleTimeout: 120,
    sendPingsAutomatically: true,
    open: (ws) => { open++; ws.send('{"t":"ready"}'); },
    close: () => { open--; },
  });

const port = await new Promise<number>((resolve, reject) => app.listen('127.0.0.1', 0, (ls) => {
  if (!ls) return reject(new Error('bare uWS could not listen'));
  resolve(uWS.us_socket_local_port(ls as unknown as uWS.us_socket));
}));

process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'mem') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ ...process.memoryUsage(), open });
  } else if (m.cmd === 'quit') {
    app.close();
    process.exit(0);
  }
});
process.stdout.write(`${JSON.stringify({ port })}\n`);
