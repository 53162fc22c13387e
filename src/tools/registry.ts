import type { AppContext } from '../app.js';
import { perApp } from '../app.js';

/**
 * The one tool registry the agent loop uses. Areas (builtins, knowledge, leads, handoff, HTTP tools, MCP,
 * page tools) register a ToolSource at start-up; for each reply the conversation engine asks every source
 * for the tools this bot may use right now, and calls them through `run`.
 */
export interface ToolCallContext {
  app: AppContext;
  workspaceId: string;
  botId: string;
  conversationId: string;
  visitorId: string;
  /** The bot config version this conversation runs with (src/bots/config BotConfig). */
  config: any;
  signal: AbortSignal;
}

export interface ToolResult {
  /** Text the model sees (cut to tools.maxResultChars by the engine). */
  content: string;
  isError?: boolean;
  /** Knowledge sources used, shown to the visitor when behavior.citations is on. */
  citations?: Array<{ title: string; url?: string | null; sourceId: string }>;
  /** Ends the conversation after this reply (end_conversation). */
  endConversation?: boolean;
}

export interface AgentTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  source: 'builtin' | 'knowledge' | 'http' | 'mcp' | 'page';
  /** Label shown to the visitor while it runs (agent.status tool.label). */
  label?: string;
  /** Ask the visitor before running (MCP destructiveHint with confirmDestructive). */
  needsConfirmation?: boolean;
  run(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult>;
}

export interface ToolSource {
  name: string;
  tools(ctx: Omit<ToolCallContext, 'signal'>): Promise<AgentTool[]> | AgentTool[];
}

/** Adds text to the system prompt before a text reply (knowledge.mode auto), marked as untrusted data. */
export interface ContextSource {
  name: string;
  context(ctx: Omit<ToolCallContext, 'signal'> & { query: string }): Promise<{ text: string; citations?: ToolResult['citations'] } | null>;
}

export class ToolRegistry {
  private sources: ToolSource[] = [];
  private contexts: ContextSource[] = [];
  addSource(s: ToolSource) { this.sources.push(s); }
  addContextSource(s: ContextSource) { this.contexts.push(s); }

  async toolsFor(ctx: Omit<ToolCallContext, 'signal'>): Promise<AgentTool[]> {
    const lists = await Promise.all(this.sources.map((s) => s.tools(ctx)));
    const seen = new Set<string>();
    return lists.flat().filter((t) => (seen.has(t.name) ? false : (seen.add(t.name), true)));
  }

  async contextFor(ctx: Omit<ToolCallContext, 'signal'> & { query: string }) {
    const parts = await Promise.all(this.contexts.map((s) => s.context(ctx)));
    return parts.filter((p): p is NonNullable<typeof p> => !!p);
  }
}

export const toolRegistry = perApp(() => new ToolRegistry());
