/**
 * Connections to MCP servers with the official SDK client: Streamable HTTP (falling back to the older
 * HTTP+SSE transport) through the guarded fetch, or stdio (a program started on this server). A small
 * cache keeps one live client per server and version; a broken one is dropped and opened again.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { GuardedFetch } from '../security/guarded-client.js';

export interface McpEndpoint {
  transport: 'http' | 'stdio';
  url: string | null;
  headers: Record<string, string>;
  command: string | null;
  args: string[];
  env: Record<string, string>;
}

export interface McpToolInfo {
  name: string;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  /** annotations.destructiveHint === true (an unmarked tool is not treated as destructive). */
  destructive: boolean;
  annotations: Record<string, unknown> | null;
}

const CLIENT_INFO = { name: 'service-chat', version: '1' };
const MAX_TOOL_PAGES = 20;

/** Opens and initialises a client. Streamable HTTP first; a server that refuses it is tried over HTTP+SSE. */
export async function openClient(ep: McpEndpoint, opts: { fetch: GuardedFetch; timeoutMs: number }): Promise<Client> {
  const requestOptions = { timeout: opts.timeoutMs };
  if (ep.transport === 'stdio') {
    if (!ep.command) throw new Error('command is required for a stdio server');
    const client = new Client(CLIENT_INFO);
    // The SDK adds only a short safe list of variables (PATH, HOME, ...) to `env`; the server's own
    // environment (SECRET_KEY, database URLs) is never passed on. stderr is dropped: it may echo env values.
    const transport = new StdioClientTransport({ command: ep.command, args: ep.args, env: ep.env, stderr: 'ignore' });
    await client.connect(transport, requestOptions);
    return client;
  }
  if (!ep.url) throw new Error('url is required for an HTTP server');
  const url = new URL(ep.url);
  const init = { headers: ep.headers };
  const fetch = opts.fetch as unknown as typeof globalThis.fetch;
  const streamable = new Client(CLIENT_INFO);
  try {
    await streamable.connect(new StreamableHTTPClientTransport(url, { requestInit: init, fetch }), requestOptions);
    return streamable;
  } catch (first) {
    await streamable.close().catch(() => {});
    const sse = new Client(CLIENT_INFO);
    try {
      await sse.connect(new SSEClientTransport(url, { requestInit: init, fetch }), requestOptions);
      return sse;
    } catch {
      await sse.close().catch(() => {});
      throw first; // the Streamable HTTP error says more about a modern server
    }
  }
}

export async function listTools(client: Client, timeoutMs: number): Promise<McpToolInfo[]> {
  const out: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const res = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    for (const t of res.tools) {
      const annotations = (t.annotations ?? null) as Record<string, unknown> | null;
      out.push({
        name: t.name,
        title: t.title ?? (annotations?.title as string | undefined) ?? null,
        description: t.description ?? '',
        inputSchema: t.inputSchema as Record<string, unknown>,
        destructive: annotations?.destructiveHint === true && annotations?.readOnlyHint !== true,
        annotations,
      });
    }
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return out;
}

/** MCP content blocks as text for the model. */
export function contentToText(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as Array<Record<string, any>>) : [];
  const parts = blocks.map((b) => {
    switch (b.type) {
      case 'text': return String(b.text ?? '');
      case 'image': return `[image ${b.mimeType ?? ''}]`;
      case 'audio': return `[audio ${b.mimeType ?? ''}]`;
      case 'resource': return typeof b.resource?.text === 'string' ? b.resource.text : `[resource ${b.resource?.uri ?? ''}]`;
      case 'resource_link': return `[resource ${b.uri ?? ''}${b.name ? ` ${b.name}` : ''}]`;
      default: return '';
    }
  }).filter(Boolean);
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

/**
 * Errors that say the connection (not the tool) failed: the request was refused before it ran (an
 * expired session, a closed process), so opening a new connection and trying once more is safe.
 */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed;
  const name = (err as Error)?.name ?? '';
  return name !== 'AbortError' && !(err instanceof Error && /timed? ?out/i.test(err.message));
}

interface Entry { version: string; client: Promise<Client>; usedAt: number }

/** One client per server id, opened on first use, replaced when the server's settings change. */
export class McpConnections {
  private entries = new Map<string, Entry>();
  /** Use order for evicting the least recently used. */
  private tick = 0;

  constructor(private readonly open: (ep: McpEndpoint) => Promise<Client>, private readonly maxOpen = 32) {}

  get(id: string, version: string, endpoint: () => McpEndpoint): Promise<Client> {
    const have = this.entries.get(id);
    if (have && have.version === version) {
      have.usedAt = ++this.tick;
      return have.client;
    }
    if (have) this.drop(id);
    this.evictIfFull();
    const client = this.open(endpoint()).then((c) => {
      // A stdio process that exits, or a transport that closes, takes its cache entry with it.
      c.onclose = () => { if (this.entries.get(id)?.client === client) this.entries.delete(id); };
      return c;
    });
    client.catch(() => { if (this.entries.get(id)?.client === client) this.entries.delete(id); });
    this.entries.set(id, { version, client, usedAt: ++this.tick });
    return client;
  }

  /** Puts an already opened client in the cache (after create/update checked it). */
  put(id: string, version: string, client: Client): void {
    this.drop(id);
    this.evictIfFull();
    const p = Promise.resolve(client);
    client.onclose = () => { if (this.entries.get(id)?.client === p) this.entries.delete(id); };
    this.entries.set(id, { version, client: p, usedAt: ++this.tick });
  }

  drop(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    void e.client.then((c) => c.close()).catch(() => {});
  }

  private evictIfFull(): void {
    if (this.entries.size < this.maxOpen) return;
    const oldest = [...this.entries].sort((a, b) => a[1].usedAt - b[1].usedAt)[0];
    if (oldest) this.drop(oldest[0]);
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.client.then((c) => c.close()).catch(() => {})));
  }
}
