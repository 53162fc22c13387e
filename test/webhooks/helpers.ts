/** Shared set-up for the webhook tests: a server on a FakeClock, a loopback receiver, and direct route calls. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeClock } from '../../src/kernel/clock.js';
import type { ApiContext, SpecRoute } from '../../src/api/define.js';
import { webhooksModule } from '../../src/api/routes/webhooks.js';
import { fromZodIssues } from '../../src/kernel/errors.js';
import type { WebhookService } from '../../src/events/webhooks/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const WS = 'ws_hooks_test';

export type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface Receiver {
  origin: string;
  url: string;
  seen: Seen[];
  /** Replaces how the receiver answers (default: 200 "ok"). */
  handle: Handler;
  close(): Promise<void>;
}

/** A loopback receiver that records every request (raw body kept as text for signature checks). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const r: Receiver = {
    origin: '', url: '', seen: [],
    handle: (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      r.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      r.handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  r.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.url = `${r.origin}/hook`;
  r.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return r;
}

export interface Harness {
  clock: FakeClock;
  server: TestServer;
  hooks: WebhookService;
  receiver: Receiver;
  /** Waits until nothing is being queued or sent. */
  settle(): Promise<void>;
  /** Advances the fake clock, then waits for the tries that fell due. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function harness(opts: { env?: Record<string, string> } = {}): Promise<Harness> {
  const clock = new FakeClock();
  const server = await startTestServer({ clock, env: opts.env });
  const receiver = await startReceiver();
  const hooks = server.services.webhooks;
  const settle = () => hooks.dispatcher.settled();
  return {
    clock, server, hooks, receiver, settle,
    async advance(ms) { await clock.advance(ms); await settle(); },
    async close() { await server.stop(); await receiver.close(); },
  };
}

export function publish(h: Harness, type: string, data: Record<string, unknown> = {}) {
  return h.server.app.events.publish(WS, type, { botId: 'bot_1', conversationId: 'conv_1', ...data });
}

/**
 * Calls a webhooks route the way the API does (body and query parsed by the route's schemas) for workspace WS,
 * without HTTP credentials: the auth area is built separately.
 */
export async function callRoute(h: Harness, op: string, input: { params?: Record<string, string>; body?: unknown; query?: Record<string, string> } = {}): Promise<unknown> {
  const def = webhooksModule(h.hooks).routes.find((r) => 'op' in r && r.op === op) as SpecRoute | undefined;
  if (!def) throw new Error(`no route ${op}`);
  const parse = (schema: SpecRoute['body'], value: unknown, prefix: string) => {
    if (!schema) return undefined;
    const r = schema.safeParse(value);
    if (!r.success) throw fromZodIssues(r.error.issues, prefix);
    return r.data;
  };
  const ctx = {
    app: h.server.app, req: undefined as never, params: input.params ?? {}, principal: null,
    body: parse(def.body, input.body ?? {}, ''), query: parse(def.query, input.query ?? {}, 'query'),
    workspaceId: WS, audit: async () => undefined,
  } satisfies ApiContext;
  const result = await def.handler(ctx);
  if (def.response && result !== undefined) def.response.parse(result);
  return result;
}
