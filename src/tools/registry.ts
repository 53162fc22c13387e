import type { AppContext } from '../app/context.js';
import type { AttachmentRef } from '../records/conversations.js';

/**
 * The one tool registry the agent loop uses. Areas (builtins, knowledge, leads, handoff, HTTP tools, MCP,
 * page tools) register a ToolSource in the composition root (src/compose.ts); for each reply the conversation engine asks every source
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
  /**
   * Knowledge excerpts given to the model; those the reply used are shown to the visitor when
   * behavior.citations is on. `excerpt` is for that choice only and is never stored.
   */
  citations?: Array<{ title: string; url?: string | null; sourceId: string; excerpt?: string }>;
  /** Ends the conversation after this reply (end_conversation). */
  endConversation?: boolean;
  /** Pictures the tool took (look_at_camera): given to the model as image parts after the tool results. */
  images?: Array<{ mimeType: string; data: Buffer }>;
  /** Stored attachments the tool made (look_at_camera's frame): kept on its tool call record for transcripts. */
  attachments?: AttachmentRef[];
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

  /** A source that fails (an MCP server down, a store error) is logged and left out; the reply goes on. */
  async toolsFor(ctx: Omit<ToolCallContext, 'signal'>): Promise<AgentTool[]> {
    const lists = await Promise.all(this.sources.map((s) => this.guard(ctx, s.name, 'tools', async () => s.tools(ctx), [] as AgentTool[])));
    const seen = new Set<string>();
    return lists.flat().filter((t) => (seen.has(t.name) ? false : (seen.add(t.name), true)));
  }

  /** Likewise a failing context source adds nothing rather than failing the reply. */
  async contextFor(ctx: Omit<ToolCallContext, 'signal'> & { query: string }) {
    const parts = await Promise.all(this.contexts.map((s) => this.guard(ctx, s.name, 'context', () => s.context(ctx), null)));
    return parts.filter((p): p is NonNullable<typeof p> => !!p);
  }

  private async guard<T>(ctx: Omit<ToolCallContext, 'signal'>, source: string, what: string, fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      ctx.app.log.warn({ err, source, botId: ctx.botId, conversationId: ctx.conversationId }, `tool source failed (${what}); the reply goes on without it`);
      return fallback;
    }
  }
}
