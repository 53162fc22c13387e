import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../../src/app/context.js';
import type { ToolCallContext } from '../../src/tools/registry.js';
import type { TestServer } from '../helpers/server.js';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback HTTP server that records requests; `answer` decides the reply (default: 200 JSON echo of the request). */
export async function startReceiver(answer?: (r: Received, res: ServerResponse) => void) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    received.push(r);
    waiters.splice(0).forEach((w) => w());
    if (answer) answer(r, res);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, method: r.method, url: r.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Resolves once a request has arrived. */
    nextRequest: () => new Promise<void>((resolve) => waiters.push(resolve)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The context the chat engine passes to toolsFor, with only the config sections tools read. */
export function toolContext(app: AppContext, workspaceId: string, tools: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { app, workspaceId, botId: 'bot_test', conversationId: 'conv_test', visitorId: 'vis_test', config: { tools: { toolTimeoutMs: 15000, maxResultChars: 8000, ...tools } }, ...extra };
}

export const callContext = (ctx: ReturnType<typeof toolContext>): ToolCallContext => ({ ...ctx, signal: new AbortController().signal });

/** The tools this area adds (HTTP, MCP, page) as the server's tool registry offers them: builtins and knowledge tools of other areas are left out. */
export const toolsFor = async (server: Pick<TestServer, 'services'>, ctx: ReturnType<typeof toolContext>) =>
  (await server.services.tools.toolsFor(ctx)).filter((t) => t.source === 'http' || t.source === 'mcp' || t.source === 'page');
