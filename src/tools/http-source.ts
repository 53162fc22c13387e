/** The ToolSource of HTTP tools: a bot's enabled tools.http entries become AgentTools. */
import type { AgentTool, ToolResult, ToolSource } from './registry.js';
import { ToolArgumentsError, type HttpToolRecord, type HttpToolService } from './http-tools.js';

interface HttpToolEntry { toolId: string; enabled?: boolean }

export function httpResultToToolResult(status: number | null, ok: boolean, body: string, error: { message: string } | null): ToolResult {
  if (error) return { content: `The tool call failed: ${error.message}`, isError: true };
  if (!ok) return { content: `HTTP ${status}${body ? `\n${body}` : ''}`, isError: true };
  return { content: body || `HTTP ${status} (no content)` };
}

/** The HTTP tools of a bot, called through the HTTP tool service. */
export function httpToolSource(service: HttpToolService): ToolSource {
  return {
    name: 'http',
    async tools(ctx) {
      const entries = ((ctx.config?.tools?.http ?? []) as HttpToolEntry[]).filter((e) => e.enabled !== false);
      if (entries.length === 0) return [];
      const found = await service.records.find({ workspaceId: ctx.workspaceId, _id: { $in: entries.map((e) => e.toolId) } }, { limit: 100 });
      const byId = new Map(found.map((t) => [t._id, t]));
      // Keep the bot's order; a tool deleted since the config was published is left out.
      return entries.map((e) => byId.get(e.toolId)).filter((t): t is HttpToolRecord => !!t).map((t): AgentTool => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        source: 'http',
        ...(t.label ? { label: t.label } : {}),
        async run(args, call) {
          try {
            const r = await service.call(t, args, { signal: call.signal, timeoutMs: call.config?.tools?.toolTimeoutMs });
            return httpResultToToolResult(r.status, r.ok, r.body, r.error);
          } catch (err) {
            if (err instanceof ToolArgumentsError) return { content: `Invalid arguments: ${err.message}`, isError: true };
            throw err;
          }
        },
      }));
    },
  };
}
