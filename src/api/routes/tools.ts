import { z } from 'zod';
import { ApiError } from '../../kernel/errors.js';
import { httpToolView, type HttpToolService } from '../../tools/http-tools.js';
import { mcpServerView, type McpServerService } from '../../tools/mcp-servers.js';
import { HttpToolInput, HttpToolPatch, McpServerInput, McpServerPatch, McpTestInput, SecretInput, ToolTestInput } from '../../tools/schemas.js';
import type { SecretService } from '../../tools/secrets.js';
import { route, reply, type ApiContext, type ApiModule } from '../define.js';
import { listOf } from './list-schemas.js';

const Outcome = z.object({ code: z.string(), message: z.string() }).nullable();
const HttpToolShape = z.object({
  id: z.string(), name: z.string(), description: z.string(), label: z.string().nullable(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']), url: z.string(), headers: z.record(z.string(), z.string()),
  bodyMode: z.enum(['none', 'args', 'template']), bodyTemplate: z.string().nullable(), parameters: z.record(z.string(), z.unknown()),
  timeoutMs: z.number(), createdAt: z.number(), updatedAt: z.number(),
});
const HttpTestShape = z.object({
  ok: z.boolean(), status: z.number().nullable(), durationMs: z.number(), body: z.string(), truncated: z.boolean(), error: Outcome,
});
const McpToolShape = z.object({
  name: z.string(), title: z.string().nullable(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()),
  destructive: z.boolean(), annotations: z.record(z.string(), z.unknown()).nullable(),
});
const McpServerShape = z.object({
  id: z.string(), name: z.string(), slug: z.string(), transport: z.enum(['http', 'stdio']), url: z.string().nullable(),
  headerNames: z.array(z.string()), command: z.string().nullable(), args: z.array(z.string()), envNames: z.array(z.string()),
  tools: z.array(McpToolShape), toolsUpdatedAt: z.number(), lastError: z.string().nullable(), createdAt: z.number(), updatedAt: z.number(),
});
const McpTestShape = z.object({ ok: z.boolean(), isError: z.boolean(), durationMs: z.number(), content: z.string(), error: Outcome });
const SecretShape = z.object({ id: z.string(), name: z.string(), createdAt: z.number(), updatedAt: z.number() });

/**
 * Every attempt to add or change a stdio MCP server (a program on this host) is audited, refused and failed ones
 * included: the entry names the program, never its args or env (they may hold credentials).
 */
async function auditedStdio<T>(ctx: ApiContext, operation: 'create' | 'update', target: { id: string | null; command: string | null }, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const refused = err instanceof ApiError && err.status === 403;
    await ctx.audit(refused ? 'tools.mcp.stdio.refused' : 'tools.mcp.stdio.failed', target.id ? { type: 'mcp_server', id: target.id } : null, {
      operation, command: target.command, reason: err instanceof ApiError ? err.message : 'internal error',
    });
    throw err;
  }
}

/** Tools, MCP servers and secrets (service-api.md). Their tool sources are registered by the composition root (src/compose.ts). */
export const toolsModule = (services: { httpTools: HttpToolService; mcpServers: McpServerService; secrets: SecretService }): ApiModule => ({
  name: 'tools',
  routes: [
    route({ op: 'GET /api/v1/tools/http', response: listOf(HttpToolShape),
      handler: async ({ workspaceId }) => ({ items: (await services.httpTools.list(workspaceId)).map(httpToolView) }) }),
    route({ op: 'POST /api/v1/tools/http', body: HttpToolInput, response: HttpToolShape, status: 201,
      handler: async ({ workspaceId, body, audit }) => {
        const t = await services.httpTools.create(workspaceId, body);
        await audit('tools.http.create', { type: 'http_tool', id: t._id }, { name: t.name });
        return httpToolView(t);
      } }),
    route({ op: 'PATCH /api/v1/tools/http/{id}', body: HttpToolPatch, response: HttpToolShape,
      handler: async ({ workspaceId, params, body, audit }) => {
        const t = await services.httpTools.update(workspaceId, params.id, body);
        await audit('tools.http.update', { type: 'http_tool', id: t._id }, { fields: Object.keys(body) });
        return httpToolView(t);
      } }),
    route({ op: 'DELETE /api/v1/tools/http/{id}',
      handler: async ({ workspaceId, params, audit }) => {
        await services.httpTools.remove(workspaceId, params.id);
        await audit('tools.http.delete', { type: 'http_tool', id: params.id });
      } }),
    route({ op: 'POST /api/v1/tools/http/{id}/test', body: ToolTestInput, response: HttpTestShape,
      handler: ({ workspaceId, params, body }) => services.httpTools.test(workspaceId, params.id, body.arguments) }),

    route({ op: 'GET /api/v1/tools/mcp', response: listOf(McpServerShape),
      handler: async ({ workspaceId }) => ({ items: (await services.mcpServers.list(workspaceId)).map(mcpServerView) }) }),
    route({ op: 'POST /api/v1/tools/mcp', body: McpServerInput, response: McpServerShape, status: 201,
      handler: async (ctx) => {
        const { workspaceId, body, principal, audit } = ctx;
        const create = () => services.mcpServers.create(workspaceId, body, { principal });
        const s = body.transport === 'stdio' ? await auditedStdio(ctx, 'create', { id: null, command: body.command }, create) : await create();
        await audit('tools.mcp.create', { type: 'mcp_server', id: s._id }, { name: s.name, transport: s.transport, ...(s.transport === 'stdio' ? { command: s.command } : {}) });
        return mcpServerView(s);
      } }),
    route({ op: 'PATCH /api/v1/tools/mcp/{id}', body: McpServerPatch, response: McpServerShape,
      handler: async (ctx) => {
        const { workspaceId, params, body, principal, audit } = ctx;
        const old = await services.mcpServers.get(workspaceId, params.id);
        const update = () => services.mcpServers.update(workspaceId, params.id, body, { principal });
        const s = old.transport === 'stdio' ? await auditedStdio(ctx, 'update', { id: old._id, command: body.command ?? old.command }, update) : await update();
        await audit('tools.mcp.update', { type: 'mcp_server', id: s._id }, { fields: Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined) });
        return mcpServerView(s);
      } }),
    route({ op: 'POST /api/v1/tools/mcp/{id}/refresh', response: McpServerShape,
      handler: async ({ workspaceId, params }) => mcpServerView(await services.mcpServers.refresh(workspaceId, params.id)) }),
    route({ op: 'POST /api/v1/tools/mcp/{id}/test', body: McpTestInput, response: McpTestShape,
      handler: ({ workspaceId, params, body }) => services.mcpServers.test(workspaceId, params.id, body.tool, body.arguments) }),
    route({ op: 'DELETE /api/v1/tools/mcp/{id}',
      handler: async ({ workspaceId, params, audit }) => {
        await services.mcpServers.remove(workspaceId, params.id);
        await audit('tools.mcp.delete', { type: 'mcp_server', id: params.id });
      } }),

    route({ op: 'GET /api/v1/secrets', response: listOf(SecretShape),
      handler: async ({ workspaceId }) => ({ items: await services.secrets.list(workspaceId) }) }),
    route({ op: 'PUT /api/v1/secrets/{name}', body: SecretInput, response: SecretShape, alsoStatus: [201],
      handler: async ({ workspaceId, params, body, audit }) => {
        const { secret, created } = await services.secrets.set(workspaceId, params.name, body.value);
        await audit(created ? 'secrets.create' : 'secrets.update', { type: 'secret', id: secret.id }, { name: secret.name });
        return reply({ status: created ? 201 : 200, body: secret });
      } }),
    route({ op: 'DELETE /api/v1/secrets/{id}',
      handler: async ({ workspaceId, params, audit }) => {
        await services.secrets.remove(workspaceId, params.id);
        await audit('secrets.delete', { type: 'secret', id: params.id });
      } }),
  ],
});
