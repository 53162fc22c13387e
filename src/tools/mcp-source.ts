/**
 * The ToolSource of MCP servers: for each tools.mcp entry of the bot, the server's stored tools that the
 * entry's allow list lets through, named mcp_<server slug>_<tool> so names are unique and valid for
 * every model provider (letters, digits, _ and -, at most 64 characters).
 */
import { createHash } from 'node:crypto';
import { argsProblem } from './json-schema.js';
import { McpCallError, type McpServerRecord, type McpServerService } from './mcp-servers.js';
import type { AgentTool, ToolSource } from './registry.js';

const MAX_NAME = 64;

interface McpEntry { serverId: string; allow?: '*' | string[]; confirmDestructive?: boolean }

/** The name the model sees for a server's tool. Long names are cut and given a short hash so they stay unique. */
export function mcpToolName(slug: string, tool: string): string {
  const full = `mcp_${slug}_${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash('sha256').update(`${slug}\0${tool}`).digest('hex').slice(0, 6);
  return `${full.slice(0, MAX_NAME - 7)}_${hash}`;
}

/** '*' allows every tool; a list names tools by their MCP name (or the name the model sees). */
export function allowedBy(allow: '*' | string[] | undefined, tool: string, exposed: string): boolean {
  if (allow === undefined || allow === '*') return true;
  return allow.includes(tool) || allow.includes(exposed);
}

/** The MCP tools of a bot, called through the MCP server service. */
export function mcpToolSource(service: McpServerService): ToolSource {
  return {
    name: 'mcp',
    async tools(ctx) {
      const entries = (ctx.config?.tools?.mcp ?? []) as McpEntry[];
      if (entries.length === 0) return [];
      const found = await service.records.find({ workspaceId: ctx.workspaceId, _id: { $in: entries.map((e) => e.serverId) } }, { limit: 50 });
      const byId = new Map(found.map((s) => [s._id, s]));
      const out: AgentTool[] = [];
      for (const entry of entries) {
        const server = byId.get(entry.serverId);
        if (!server) continue; // deleted since the config was published
        for (const t of server.tools) {
          const name = mcpToolName(server.slug, t.name);
          if (!allowedBy(entry.allow, t.name, name)) continue;
          out.push(agentTool(service, server, t, name, entry.confirmDestructive !== false && t.destructive));
        }
      }
      return out;
    },
  };
}

function agentTool(service: McpServerService, server: McpServerRecord, t: McpServerRecord['tools'][number], name: string, needsConfirmation: boolean): AgentTool {
  return {
    name,
    description: t.description || t.title || t.name,
    parameters: t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : { type: 'object', properties: {} },
    source: 'mcp',
    label: t.title ?? t.name,
    needsConfirmation,
    async run(args, ctx) {
      // Checked here when the schema compiles; the MCP server checks again either way.
      let problem: string | null = null;
      try { problem = argsProblem(t.inputSchema, args); } catch { problem = null; }
      if (problem) return { content: `Invalid arguments: ${problem}`, isError: true };
      try {
        const r = await service.callTool(server, t.name, args, { signal: ctx.signal, timeoutMs: ctx.config?.tools?.toolTimeoutMs });
        return { content: r.content, isError: r.isError };
      } catch (err) {
        if (err instanceof McpCallError) return { content: `The tool call failed: ${err.message}`, isError: true };
        throw err;
      }
    },
  };
}
