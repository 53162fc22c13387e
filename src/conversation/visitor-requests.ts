import type { AppContext } from '../app/context.js';
import type { TimerHandle } from '../kernel/clock.js';
import { newId } from '../store/ids.js';
import type { PageToolBridge, PageToolSpec } from '../tools/page-tools.js';
import type { ToolResult } from '../tools/registry.js';
import type { ChatHub } from './hub.js';
import type { ServerFrame } from './protocol.js';

/** How long the visitor has to allow or refuse a destructive tool before the agent is told they did not. */
export const CONFIRM_TIMEOUT_MS = 120_000;

interface Pending {
  conversationId: string;
  kind: 'tool_call' | 'confirm';
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: TimerHandle;
}

/**
 * Questions the server asks the visitor's page and waits for: running a page tool (`tool_call` ->
 * `tool_result`) and allowing a destructive tool (`confirm` -> `confirm`). Any open socket of the
 * conversation may answer; an answer naming another conversation's request is ignored.
 */
export class VisitorRequests implements PageToolBridge {
  private pending = new Map<string, Pending>();
  /** Tools each conversation's page registered (the latest `tools` frame of any of its sockets). */
  private pageTools = new Map<string, PageToolSpec[]>();

  constructor(private app: AppContext, private hub: ChatHub) {}

  setPageTools(conversationId: string, tools: PageToolSpec[]): void { this.pageTools.set(conversationId, tools); }
  pageToolsFor(conversationId: string): PageToolSpec[] { return this.pageTools.get(conversationId) ?? []; }
  /** Forgets a conversation's page tools and fails its open questions (its last socket closed). */
  forget(conversationId: string): void {
    this.pageTools.delete(conversationId);
    for (const [id, p] of this.pending) if (p.conversationId === conversationId) this.settle(id, new Error('the visitor closed the chat'));
  }

  private ask(conversationId: string, kind: Pending['kind'], frame: (id: string) => ServerFrame, timeoutMs: number): Promise<unknown> {
    const id = newId('vrq', this.app.clock.now());
    return new Promise((resolve, reject) => {
      const timer = this.app.clock.setTimeout(() => this.settle(id, new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      this.pending.set(id, { conversationId, kind, resolve, reject, timer });
      if (this.hub.push(conversationId, frame(id)) === 0) this.settle(id, new Error('the visitor does not have the chat open'));
    });
  }

  private settle(id: string, outcome: Error | { value: unknown }): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    this.app.clock.clearTimeout(p.timer);
    if (outcome instanceof Error) p.reject(outcome); else p.resolve(outcome.value);
    return true;
  }

  /** An answer from a socket of `conversationId`; false when it matches no open question of that conversation. */
  answer(conversationId: string, id: string, kind: Pending['kind'], value: unknown): boolean {
    const p = this.pending.get(id);
    if (!p || p.conversationId !== conversationId || p.kind !== kind) return false;
    return this.settle(id, { value });
  }

  /** PageToolBridge: runs a page tool in the visitor's browser. */
  async call(conversationId: string, name: string, args: Record<string, unknown>, timeoutMs: number): Promise<ToolResult> {
    const r = await this.ask(conversationId, 'tool_call', (callId) => ({ t: 'tool_call', callId, name, args }), timeoutMs) as { content: string; isError?: boolean };
    return { content: r.content, isError: !!r.isError };
  }

  /** Asks the visitor to allow a destructive tool; false when refused, unanswered or nobody has the chat open. */
  async confirm(conversationId: string, tool: { name: string; label: string }, args: Record<string, unknown>): Promise<boolean> {
    try {
      return (await this.ask(conversationId, 'confirm', (confirmId) => ({ t: 'confirm', confirmId, tool, args }), CONFIRM_TIMEOUT_MS)) === true;
    } catch { return false; }
  }
}

