/**
 * Page tools: tools the embedding page registered through the widget API. The chat engine puts them on
 * the tool context (`pageTools`) and implements the PageToolBridge that sends a call over the chat socket
 * and waits for the page's answer. They are offered only when tools.client.enabled and allowed by
 * tools.client.allow ('*' or names; an empty list allows none).
 */
import { argsProblem, argsSchemaProblem } from './json-schema.js';
import type { AgentTool, ToolCallContext, ToolResult, ToolSource } from './registry.js';
import { TOOL_NAME } from './schemas.js';

export interface PageToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (type object). */
  parameters: Record<string, unknown>;
}

/** What the chat engine adds to the tool context for page tools. */
export interface PageToolContext {
  pageTools?: PageToolSpec[];
}

/** Implemented by the chat engine: sends the call to the page and resolves with its answer, or rejects/errors on timeout. */
export interface PageToolBridge {
  call(conversationId: string, name: string, args: Record<string, unknown>, timeoutMs: number): Promise<ToolResult>;
}

const MAX_PAGE_TOOLS = 50;

/** The page tools, run in the visitor's page through `bridge` (the chat engine's visitor requests). */
export const pageToolSource = (bridge: PageToolBridge): ToolSource => ({
  name: 'page',
  tools(ctx) {
    const client = ctx.config?.tools?.client as { enabled?: boolean; allow?: '*' | string[]; timeoutMs?: number } | undefined;
    if (!client?.enabled) return [];
    const allow = client.allow ?? [];
    const offered = (ctx as typeof ctx & PageToolContext).pageTools ?? [];
    const timeoutMs = client.timeoutMs ?? 15_000;
    const seen = new Set<string>();
    const out: AgentTool[] = [];
    for (const spec of offered.slice(0, MAX_PAGE_TOOLS)) {
      // The page is not trusted: names and schemas that a provider would refuse are left out.
      if (!spec || typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name) || seen.has(spec.name)) continue;
      if (allow !== '*' && !allow.includes(spec.name)) continue;
      const parameters = spec.parameters ?? { type: 'object', properties: {} };
      if (argsSchemaProblem(parameters)) continue;
      seen.add(spec.name);
      out.push(pageTool(bridge, spec, parameters, timeoutMs));
    }
    return out;
  },
});

function pageTool(bridge: PageToolBridge, spec: PageToolSpec, parameters: Record<string, unknown>, timeoutMs: number): AgentTool {
  return {
    name: spec.name,
    description: String(spec.description ?? '').slice(0, 1024) || spec.name,
    parameters,
    source: 'page',
    async run(args, ctx: ToolCallContext) {
      const problem = argsProblem(parameters, args);
      if (problem) return { content: `Invalid arguments: ${problem}`, isError: true };
      try {
        return await bridge.call(ctx.conversationId, spec.name, args, timeoutMs);
      } catch (err) {
        return { content: `The page did not answer: ${(err as Error).message}`, isError: true };
      }
    },
  };
}
