/**
 * A fake MCP server built with the SDK's server side (McpServer). Reachable over Streamable HTTP (stateless,
 * one McpServer per request so tools added later show up at once), over the older HTTP+SSE transport, and
 * over stdio through test/fakes/mcp-stdio-server.ts. It records request headers and calls so tests can
 * check what the client really sent. Every message is checked by the fake itself (mcp-schemas.ts) before the SDK
 * sees it: a message the specification refuses is refused with JSON-RPC's error, whatever the SDK would accept.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { checkMcp, PARSE_ERROR, type McpRefusal } from './mcp-schemas.js';

export interface FakeMcpState {
  /** Extra tools added with addTool: each echoes its name. */
  extraTools: string[];
  /** Every call of a tool: name and arguments. */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  /** Items removed by delete_item. */
  deleted: string[];
}

export const newFakeMcpState = (): FakeMcpState => ({ extraTools: [], calls: [], deleted: [] });

/** The server's tools: echo (normal), delete_item (destructiveHint), env (reads a variable: stdio tests), plus extras. */
export function buildFakeMcpServer(state: FakeMcpState): McpServer {
  const server = new McpServer({ name: 'fake-mcp', version: '1.0.0' });
  server.registerTool('echo', {
    description: 'Repeats the text it is given.',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  }, async ({ text }) => {
    state.calls.push({ name: 'echo', args: { text } });
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  });
  server.registerTool('delete_item', {
    description: 'Deletes an item for good.',
    inputSchema: { id: z.string() },
    annotations: { destructiveHint: true },
  }, async ({ id }) => {
    state.calls.push({ name: 'delete_item', args: { id } });
    state.deleted.push(id);
    return { content: [{ type: 'text', text: `deleted ${id}` }] };
  });
  server.registerTool('env', {
    description: 'Reads an environment variable of the server process (reversed on request, so a test sees a value the client would redact).',
    inputSchema: { name: z.string(), reversed: z.boolean().optional() },
  }, async ({ name, reversed }) => {
    const value = process.env[name];
    const text = value === undefined ? '(unset)' : reversed ? [...value].reverse().join('') : value;
    return { content: [{ type: 'text', text }] };
  });
  server.registerTool('fail', { description: 'Always reports an error.' }, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
  for (const name of state.extraTools) {
    server.registerTool(name, { description: `Extra tool ${name}.` }, async () => {
      state.calls.push({ name, args: {} });
      return { content: [{ type: 'text', text: `${name} ran` }] };
    });
  }
  return server;
}

export interface FakeMcpHttp {
  /** Streamable HTTP endpoint (…/mcp), or the SSE endpoint (…/sse) when started with mode 'sse'. */
  url: string;
  state: FakeMcpState;
  /** Headers of every request received. */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers'] }>;
  addTool(name: string): void;
  close(): Promise<void>;
}

/**
 * A POST's JSON-RPC message(s), checked by the fake itself (mcp-schemas.ts) as the specification says: JSON with
 * Content-Type application/json, a well-formed request, notification or response, known methods with their params.
 * A refusal is answered here (the SDK never sees it) and null returned.
 */
async function readMessage(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | null> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const refuse = (status: number, r: McpRefusal) => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: r.id, error: { code: r.code, message: r.message } })); return null; };
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return refuse(415, { id: null, code: -32600, message: `Unsupported Media Type: Content-Type must be application/json, got ${req.headers['content-type'] ?? '(none)'}` });
  let body: unknown;
  try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { return refuse(400, { id: null, code: PARSE_ERROR, message: 'Parse error: the body is not JSON' }); }
  const wrong = checkMcp(body);
  // A well-formed request for a method the server lacks or with wrong params is answered (200); anything else is 400.
  if (wrong) return refuse(wrong.code === -32601 || wrong.code === -32602 ? 200 : 400, wrong);
  return { body };
}

/** Starts the fake on 127.0.0.1 (port 0). mode 'sse' serves only the older HTTP+SSE transport (GET /sse, POST /messages). */
export async function startFakeMcpHttp(opts: { mode?: 'streamable' | 'sse'; requireHeader?: [string, string] } = {}): Promise<FakeMcpHttp> {
  const mode = opts.mode ?? 'streamable';
  const state = newFakeMcpState();
  const requests: FakeMcpHttp['requests'] = [];
  const sse = new Map<string, SSEServerTransport>();
  const http: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ method: req.method ?? '', path, headers: req.headers });
    if (opts.requireHeader && req.headers[opts.requireHeader[0].toLowerCase()] !== opts.requireHeader[1]) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'missing credentials' }));
      return;
    }
    try {
      if (mode === 'streamable' && path === '/mcp') {
        if (req.method !== 'POST') { res.writeHead(405, { allow: 'POST' }).end(); return; }
        const read = await readMessage(req, res);
        if (!read) return;
        const { body } = read;
        const server = buildFakeMcpServer(state);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => { void transport.close(); void server.close(); });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      if (mode === 'sse' && path === '/sse' && req.method === 'GET') {
        const transport = new SSEServerTransport('/messages', res);
        sse.set(transport.sessionId, transport);
        res.on('close', () => sse.delete(transport.sessionId));
        await buildFakeMcpServer(state).connect(transport);
        return;
      }
      if (mode === 'sse' && path === '/messages' && req.method === 'POST') {
        const transport = sse.get(new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '');
        if (!transport) { res.writeHead(404).end(); return; }
        const read = await readMessage(req, res);
        if (read) await transport.handlePostMessage(req, res, read.body);
        return;
      }
      res.writeHead(404).end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    state,
    requests,
    addTool: (name) => { state.extraTools.push(name); },
    async close() {
      for (const t of sse.values()) await t.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
