/** A tiny loopback HTTP server for the guarded-client tests: records every request it sees. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { createGuardedClient, OutboundError, type GuardedClient, type GuardedClientOptions } from '../../src/security/guarded-client.js';

export type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface LoopbackServer {
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler, host = '127.0.0.1'): Promise<LoopbackServer> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://${host}:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A resolver stand-in: answers from a fixed table and counts how often each name was asked. */
export function tableLookup(table: Record<string, string | string[]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [entry].flat().map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return { lookup, calls };
}

/** Guarded clients a test file makes (defaults first, then each call's options), closed together in test.after. */
export function clientPool(defaults: GuardedClientOptions) {
  const opened: GuardedClient[] = [];
  return {
    client(opts: Partial<GuardedClientOptions> = {}): GuardedClient {
      const c = createGuardedClient({ ...defaults, ...opts });
      opened.push(c);
      return c;
    },
    closeAll: () => Promise.all(opened.map((c) => c.close())),
  };
}

/** The OutboundError a request fails with (the test fails if it succeeds or throws anything else). */
export async function outboundFailure(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, OutboundError);
    return err as OutboundError;
  }
  throw new Error('expected the request to fail');
}
