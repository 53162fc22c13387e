import type { AppContext } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import type { ToolCall } from '../providers/index.js';
import { newId } from '../store/ids.js';
import type { AgentTool, ToolResult } from '../tools/registry.js';
import { untrusted } from './prompt.js';
import { recordToolCall } from '../metrics/record.js';
import type { ConversationRecord, ToolCallRecord } from '../records/conversations.js';

/** What running one tool call needs from the reply (text agent loop or voice session) that asked for it. */
export interface ToolCallInput {
  app: AppContext;
  config: BotConfig;
  conversation: ConversationRecord;
  /** The reply message the call belongs to. */
  messageId: string;
  signal: AbortSignal;
  onStatus(state: 'thinking' | 'tool' | 'idle', tool?: { name: string; label: string }): void;
  /** Asks the visitor to allow a tool marked needsConfirmation; resolves false when refused or unanswered. */
  confirm?(tool: { name: string; label: string }, args: Record<string, unknown>): Promise<boolean>;
}

class DeclinedError extends Error {
  constructor(name: string) { super(`The visitor did not allow the tool ${name} to run; it was not run.`); }
}

/**
 * Runs one tool call the model asked for: the visitor's confirmation when the tool needs it, the time limit, the
 * result cut to tools.maxResultChars and marked untrusted. Failures become the content the model reads; only the
 * reply's own abort is thrown.
 */
export async function runToolCall(input: ToolCallInput, tool: AgentTool | undefined, call: ToolCall, round: number, ctxBase: Omit<Parameters<AgentTool['run']>[1], 'signal'>) {
  const { app, config, conversation: conv } = input;
  const started = app.clock.now();
  const t0 = performance.now();
  let result: ToolResult | null = null;
  let content: string;
  let isError = false;
  if (!tool) {
    content = `There is no tool named ${call.name}.`;
    isError = true;
  } else {
    input.onStatus('tool', { name: tool.name, label: tool.label ?? tool.name });
    const ac = new AbortController();
    const onAbort = () => ac.abort(input.signal.reason);
    input.signal.addEventListener('abort', onAbort, { once: true });
    let timeout: ReturnType<typeof setTimeout> | undefined;
    try {
      let args: Record<string, unknown> = {};
      const parsed = call.arguments ? JSON.parse(call.arguments) : {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed;
      // Destructive tools (MCP destructiveHint with confirmDestructive) run only once the visitor allows them.
      if (tool.needsConfirmation && !(await input.confirm?.({ name: tool.name, label: tool.label ?? tool.name }, args))) {
        throw new DeclinedError(call.name);
      }
      // The time limit starts once the tool may run (waiting for the visitor's answer is not the tool's time).
      timeout = setTimeout(() => ac.abort(new Error('timeout')), config.tools.toolTimeoutMs);
      result = await Promise.race([
        tool.run(args, { ...ctxBase, signal: ac.signal }),
        new Promise<never>((_, reject) => ac.signal.addEventListener('abort', () => reject(ac.signal.reason), { once: true })),
      ]);
      content = result.content;
      isError = !!result.isError;
    } catch (err) {
      isError = true;
      content = err instanceof DeclinedError ? err.message : ac.signal.aborted && !input.signal.aborted
        ? `The tool ${call.name} did not answer within ${config.tools.toolTimeoutMs} ms.`
        : `The tool ${call.name} failed: ${err instanceof SyntaxError ? 'its arguments were not valid JSON' : (err as Error)?.message ?? 'error'}`;
      if (input.signal.aborted) throw err;
    } finally {
      clearTimeout(timeout);
      input.signal.removeEventListener('abort', onAbort);
    }
    if (content.length > config.tools.maxResultChars) content = `${content.slice(0, config.tools.maxResultChars)}\n[cut to ${config.tools.maxResultChars} characters]`;
    if (tool.source !== 'builtin') content = untrusted(`tool:${tool.name}`, content);
  }
  const rec: ToolCallRecord = {
    _id: newId('tc', started), workspaceId: conv.workspaceId, conversationId: conv._id, botId: conv.botId, messageId: input.messageId,
    round, name: call.name, arguments: call.arguments, result: content, isError, durationMs: Math.round(performance.now() - t0), createdAt: started,
    ...(result?.attachments?.length ? { attachments: result.attachments } : {}),
  };
  recordToolCall(tool?.source, isError, rec.durationMs);
  return { rec, content, result };
}

