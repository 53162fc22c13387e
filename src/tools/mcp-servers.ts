/**
 * MCP servers of a workspace: connection settings (headers and env sealed at rest), the tools listed on
 * connect and on refresh, test calls, and tool calls for the agent through a per-server connection cache.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AppContext } from '../app/context.js';
import { invalid, notFound } from '../kernel/errors.js';
import { createGuardedClient, parseOutboundUrl, type GuardedClient } from '../security/guarded-client.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { newId } from '../store/ids.js';
import type { Collection, Doc } from '../store/types.js';
import type { Principal } from '../auth/principal.js';
import { stdioAllowed, stdioRefusal } from './stdio-policy.js';
import { contentToText, isConnectionError, listTools, McpConnections, openClient, type McpEndpoint, type McpToolInfo } from './mcp-connection.js';
import type { McpServerInput, McpServerPatch } from './schemas.js';
import { redactSecrets } from './secrets.js';

const CONNECT_TIMEOUT_MS = 15_000;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export interface McpServerRecord extends Doc {
  name: string;
  /** Stable, unique in the workspace: the middle part of tool names shown to the model (mcp_<slug>_<tool>). */
  slug: string;
  transport: 'http' | 'stdio';
  url: string | null;
  /** Sealed JSON of the headers (context `<id>:headers`), or null when there are none. */
  headers: string | null;
  headerNames: string[];
  command: string | null;
  args: string[];
  /** Sealed JSON of the environment (context `<id>:env`). */
  env: string | null;
  envNames: string[];
  tools: McpToolInfo[];
  toolsUpdatedAt: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What the API shows: header and env names, never their values. */
export function mcpServerView(r: McpServerRecord) {
  const { _id, workspaceId: _w, headers: _h, env: _e, ...rest } = r;
  return { id: _id, ...rest };
}

export class McpCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpCallError';
  }
}

export function slugOf(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 20).replace(/_+$/, '');
  return s || 'server';
}

export class McpServerService {
  readonly records: Collection<McpServerRecord>;
  readonly connections: McpConnections;
  private guarded: GuardedClient | null = null;

  constructor(private readonly app: AppContext) {
    this.records = app.store.collection<McpServerRecord>('mcp_servers', { indexes: [{ fields: [['workspaceId', 1], ['slug', 1]], unique: true }] });
    this.connections = new McpConnections((ep) => this.open(ep));
  }

  /** At shutdown (the composition root calls it): closes every MCP connection, then the guarded client. */
  async close(): Promise<void> {
    await this.connections.closeAll();
    await this.guarded?.close();
  }

  private open(ep: McpEndpoint): Promise<Client> {
    if (ep.transport === 'stdio' && !stdioAllowed(this.app, ep.command)) {
      return Promise.reject(new Error(`the program ${ep.command ?? '(none)'} is not allowed on this server (MCP_STDIO_COMMANDS); the operator lists it there, or connect the server over HTTP`));
    }
    // The SDK times each request itself; the fetch limit (time to response headers) only has to outlast the
    // longest tool call a bot allows (toolTimeoutMs up to 120 s), since JSON-answer servers send headers last.
    this.guarded ??= createGuardedClient({ allowPrivateNetwork: this.app.config.allowPrivateNetwork, clock: this.app.clock, timeoutMs: 120_000 });
    return openClient(ep, { fetch: this.guarded.fetch, timeoutMs: CONNECT_TIMEOUT_MS });
  }

  endpointOf(r: McpServerRecord): McpEndpoint {
    return {
      transport: r.transport, url: r.url, command: r.command, args: r.args,
      headers: r.headers ? JSON.parse(openSecret(r.headers, this.app.secretKey, `${r._id}:headers`)) : {},
      env: r.env ? JSON.parse(openSecret(r.env, this.app.secretKey, `${r._id}:env`)) : {},
    };
  }

  private seal(id: string, ep: McpEndpoint) {
    const h = Object.keys(ep.headers), e = Object.keys(ep.env);
    return {
      headers: h.length ? sealSecret(JSON.stringify(ep.headers), this.app.secretKey, `${id}:headers`) : null, headerNames: h,
      env: e.length ? sealSecret(JSON.stringify(ep.env), this.app.secretKey, `${id}:env`) : null, envNames: e,
    };
  }

  /** Connects with these settings and lists the tools; the client is returned for the cache. Errors are redacted. */
  private async probe(ep: McpEndpoint): Promise<{ client: Client; tools: McpToolInfo[] }> {
    let client: Client | null = null;
    try {
      client = await this.open(ep);
      return { client, tools: await listTools(client, CONNECT_TIMEOUT_MS) };
    } catch (err) {
      await client?.close().catch(() => {});
      throw invalid(`could not connect to the MCP server: ${redactEndpoint((err as Error).message, ep)}`);
    }
  }

  list(workspaceId: string) {
    return this.records.find({ workspaceId }, { limit: 500 });
  }

  async get(workspaceId: string, id: string): Promise<McpServerRecord> {
    const r = await this.records.findById(workspaceId, id);
    if (!r) throw notFound('MCP server');
    return r;
  }

  /** `principal`: who asks; a stdio server (a program on this host) needs the operator's allow-list and a signed-in admin (stdio-policy.ts). */
  async create(workspaceId: string, input: McpServerInput, opts: { principal: Principal | null }): Promise<McpServerRecord> {
    const ep: McpEndpoint = { transport: input.transport, url: input.url, headers: input.headers, command: input.command, args: input.args, env: input.env };
    this.checkEndpoint(ep, opts.principal);
    const { client, tools } = await this.probe(ep);
    const now = this.app.clock.now();
    const _id = newId('mcp', now);
    const slug = await this.freeSlug(workspaceId, slugOf(input.name));
    const rec: McpServerRecord = {
      _id, workspaceId, name: input.name, slug, transport: ep.transport, url: ep.url, command: ep.command, args: ep.args,
      ...this.seal(_id, ep), tools, toolsUpdatedAt: now, lastError: null, createdAt: now, updatedAt: now,
    };
    try {
      await this.records.insertOne(rec);
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
    this.connections.put(_id, String(now), client);
    return rec;
  }

  /** Headers and env: replaced when given; with keepHeaders / keepEnv the old ones stay and given ones are added over them. */
  async update(workspaceId: string, id: string, patch: McpServerPatch, opts: { principal: Principal | null }): Promise<McpServerRecord> {
    const old = await this.get(workspaceId, id);
    const before = this.endpointOf(old);
    const ep: McpEndpoint = {
      transport: old.transport,
      url: patch.url !== undefined ? patch.url : old.url,
      command: patch.command !== undefined ? patch.command : old.command,
      args: patch.args ?? old.args,
      headers: patch.keepHeaders ? { ...before.headers, ...patch.headers } : patch.headers ?? before.headers,
      env: patch.keepEnv ? { ...before.env, ...patch.env } : patch.env ?? before.env,
    };
    const changed = JSON.stringify(ep) !== JSON.stringify(before);
    if (changed) this.checkEndpoint(ep, opts.principal);
    const now = Math.max(this.app.clock.now(), old.updatedAt + 1);
    const set: Partial<McpServerRecord> = { name: patch.name ?? old.name, updatedAt: now };
    let client: Client | null = null;
    if (changed) {
      const probed = await this.probe(ep);
      client = probed.client;
      Object.assign(set, { url: ep.url, command: ep.command, args: ep.args, ...this.seal(id, ep), tools: probed.tools, toolsUpdatedAt: now, lastError: null });
    }
    const updated = await this.records.updateOne({ workspaceId, _id: id }, { $set: set });
    if (!updated) {
      await client?.close().catch(() => {});
      throw notFound('MCP server');
    }
    if (client) this.connections.put(id, String(now), client);
    else this.connections.drop(id);
    return updated;
  }

  /** Lists the tools again (POST /tools/mcp/{id}/refresh); a failure is stored as lastError and answered 422. */
  async refresh(workspaceId: string, id: string): Promise<McpServerRecord> {
    const r = await this.get(workspaceId, id);
    let tools: McpToolInfo[];
    try {
      tools = await this.withClient(r, (c) => listTools(c, CONNECT_TIMEOUT_MS));
    } catch (err) {
      const message = redactEndpoint((err as Error).message, this.endpointOf(r));
      await this.records.updateOne({ workspaceId, _id: id }, { $set: { lastError: message } });
      throw invalid(`could not list the MCP server's tools: ${message}`);
    }
    const now = this.app.clock.now();
    return (await this.records.updateOne({ workspaceId, _id: id }, { $set: { tools, toolsUpdatedAt: now, lastError: null } })) ?? r;
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    if (!(await this.records.deleteOne({ workspaceId, _id: id }))) throw notFound('MCP server');
    this.connections.drop(id);
  }

  /** Calls a tool; the tool's own errors come back as isError, connection failures as McpCallError (redacted). */
  async callTool(r: McpServerRecord, tool: string, args: Record<string, unknown>, opts: { signal?: AbortSignal; timeoutMs?: number } = {}) {
    const started = this.app.clock.now();
    try {
      const res = await this.withClient(r, (c) => c.callTool({ name: tool, arguments: args }, undefined, {
        signal: opts.signal, timeout: opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      }));
      // Credentials given to the server (headers, env) are not for the model, even if a tool echoes them.
      const content = redactEndpoint(contentToText(res as { content?: unknown; structuredContent?: unknown }), this.endpointOf(r));
      return { content, isError: res.isError === true, durationMs: this.app.clock.now() - started };
    } catch (err) {
      throw new McpCallError(redactEndpoint((err as Error).message, this.endpointOf(r)));
    }
  }

  /** POST /tools/mcp/{id}/test */
  async test(workspaceId: string, id: string, tool: string, args: Record<string, unknown>) {
    const r = await this.get(workspaceId, id);
    if (!r.tools.some((t) => t.name === tool)) throw invalid(`tool: ${tool} is not one of this server's tools (refresh if it was added)`);
    const started = this.app.clock.now();
    try {
      const res = await this.callTool(r, tool, args);
      return { ok: !res.isError, isError: res.isError, durationMs: res.durationMs, content: res.content, error: null };
    } catch (err) {
      if (!(err instanceof McpCallError)) throw err;
      return { ok: false, isError: true, durationMs: this.app.clock.now() - started, content: '', error: { code: 'failed', message: err.message } };
    }
  }

  /** Runs fn on the cached client; when the connection (not the request) failed, opens a new one and tries once more. */
  private async withClient<T>(r: McpServerRecord, fn: (c: Client) => Promise<T>): Promise<T> {
    const version = String(r.updatedAt);
    try {
      return await fn(await this.connections.get(r._id, version, () => this.endpointOf(r)));
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      this.connections.drop(r._id);
      return fn(await this.connections.get(r._id, version, () => this.endpointOf(r)));
    }
  }

  private checkEndpoint(ep: McpEndpoint, principal: Principal | null): void {
    if (ep.transport === 'stdio') {
      const refusal = stdioRefusal(this.app, principal, ep.command);
      if (refusal) throw refusal;
      return;
    }
    if (!ep.url) throw invalid('url: required for an HTTP server');
    try {
      parseOutboundUrl(ep.url);
    } catch (err) {
      throw invalid(`url: ${(err as Error).message}`);
    }
  }

  private async freeSlug(workspaceId: string, base: string): Promise<string> {
    const taken = new Set((await this.records.find({ workspaceId }, { limit: 1000 })).map((r) => r.slug));
    if (!taken.has(base)) return base;
    for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
  }
}

function redactEndpoint(message: string, ep: McpEndpoint): string {
  const values = new Map<string, string>();
  for (const [k, v] of Object.entries(ep.headers)) values.set(`header ${k}`, v);
  for (const [k, v] of Object.entries(ep.env)) values.set(`env ${k}`, v);
  return redactSecrets(message, values);
}

