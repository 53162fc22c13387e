import type { ConversationRecord } from '../../src/records/conversations.js';
import { runToolCall } from '../../src/conversation/tool-call.js';
import type { PageToolSpec } from '../../src/tools/page-tools.js';
import type { AgentTool } from '../../src/tools/registry.js';
import type { VoiceSessionActor } from './actor.js';
import type { VoiceMsg } from './messages.js';

/**
 * Tool calls in a voice session: the same tools and the same runner as text replies (src/conversation/tool-call.ts), run
 * beside the mailbox; each result goes back to the engine. `express` changes the face at once.
 */
export class VoiceTools {
  private byName = new Map<string, AgentTool>();
  private conv: ConversationRecord | null = null;
  private readonly controller = new AbortController();
  running = 0;
  private round = 0;

  constructor(private readonly a: VoiceSessionActor) {}

  pageTools(): PageToolSpec[] {
    return this.a.init.requests.pageToolsFor(this.a.conversationId);
  }

  /** A "thinking" line is showing in the chat since the last tool finished; the answer starting clears it. */
  private statusShown = false;

  /** The agent started speaking: a status left from a tool round is cleared (text replies end theirs the same way). */
  speaking(): void {
    if (!this.statusShown || !this.conv) return;
    this.statusShown = false;
    const conversationId = this.conv._id;
    this.a.init.hub.push(conversationId, { t: 'status', conversationId, state: 'idle' });
    this.a.init.app.events.publishVolatile(this.conv.workspaceId, 'agent.status', { conversationId, state: 'idle' });
  }

  offer(tools: AgentTool[], conv: ConversationRecord): void {
    this.byName = new Map(tools.map((t) => [t.name, t]));
    this.conv = conv;
  }

  run(callId: string, name: string, args: string): void {
    const { app, chat, hub } = this.a.init;
    const conv = this.conv;
    if (!conv) return;
    const conversationId = conv._id;
    const status = (state: 'thinking' | 'tool' | 'idle', tool?: { name: string; label: string }) => {
      hub.push(conversationId, { t: 'status', conversationId, state, ...(tool ? { tool } : {}) });
      app.events.publishVolatile(conv.workspaceId, 'agent.status', { conversationId, state, ...(tool ? { tool } : {}) });
    };
    this.running++;
    this.a.setPhase('thinking');
    const { requests } = this.a.init;
    const item = [...this.a.turns.items.values()].pop();
    const ctx = { app, workspaceId: conv.workspaceId, botId: conv.botId, conversationId, visitorId: conv.visitorId, config: chat.config, pageTools: this.pageTools() };
    runToolCall({
      app, config: chat.config, conversation: conv, messageId: item?.messageId ?? callId, signal: this.controller.signal, onStatus: status,
      confirm: (tool, a) => requests.confirm(conversationId, tool, a),
    }, this.byName.get(name), { id: callId, name, arguments: args }, this.round++, ctx).then(({ rec, content, result }) => {
      if (name === 'express' && !rec.isError && chat.config.face.expressions) {
        const mood = JSON.parse(args || '{}').mood;
        hub.push(conversationId, { t: 'face', mood });
      }
      // A picture a tool took (look_at_camera) goes to engines that take pictures (a hosted agent gets it described).
      for (const img of result?.images ?? []) this.a.engine?.sendImage?.(img);
      const msg: VoiceMsg = { type: 'toolDone', callId, output: content, endConversation: !!result?.endConversation, rec };
      try { this.a.send(msg); } catch { /* the session ended meanwhile */ }
    }, (err) => {
      if (!this.controller.signal.aborted) app.log.error({ err, sessionId: this.a.id }, 'voice tool call failed');
    });
  }

  /** A tool finished: recorded like in text (tool.called), its result handed to the engine. */
  done(msg: Extract<VoiceMsg, { type: 'toolDone' }>): void {
    const { app, hub } = this.a.init;
    const conv = this.conv!;
    this.running = Math.max(0, this.running - 1);
    void this.a.collections.toolCalls.insertOne(msg.rec).catch((err) => app.log.error({ err }, 'storing a voice tool call failed'));
    void app.events.publish(conv.workspaceId, 'tool.called', { botId: conv.botId, conversationId: conv._id, name: msg.rec.name, isError: msg.rec.isError, durationMs: msg.rec.durationMs })
      .catch((err) => app.log.error({ err }, 'publishing tool.called failed'));
    if (this.running === 0) { hub.push(conv._id, { t: 'status', conversationId: conv._id, state: 'thinking' }); this.statusShown = true; }
    if (msg.endConversation) this.a.s.goodbye = true;
    this.a.engine?.sendToolResult(msg.callId, msg.output);
  }

  abort(): void {
    this.controller.abort(new Error('voice session ended'));
  }
}
