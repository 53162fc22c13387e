import type { AppContext } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import { estimateCostUsd, type ChatContentPart, type ChatEvent, type ChatMessage, type ToolCall } from '../providers/index.js';
import { recordUnusedExcerpts } from '../knowledge/agent.js';
import { citationsUsed, type Citation } from '../knowledge/citations.js';
import type { ToolRegistry, ToolResult } from '../tools/registry.js';
import type { ChatBrain } from '../bots/bot-source.js';
import { estimateTokens, splitForCompaction, summarize } from './compaction.js';
import { isMood, MoodFilter } from './mood.js';
import { buildSystemPrompt } from './prompt.js';
import type { ConversationRecord, MessageRecord, ToolCallRecord } from '../records/conversations.js';
import { runToolCall } from './tool-call.js';
import type { PageToolSpec } from '../tools/page-tools.js';

export interface ReplyInput {
  app: AppContext;
  /** The tools and knowledge context a reply may use. */
  tools: ToolRegistry;
  config: BotConfig;
  brain: ChatBrain;
  conversation: ConversationRecord;
  /** Messages after the current summary, oldest first. */
  history: MessageRecord[];
  messageId: string;
  signal: AbortSignal;
  onDelta(text: string): void;
  onStatus(state: 'thinking' | 'tool' | 'idle', tool?: { name: string; label: string }): void;
  onMood(mood: string): void;
  onToolCalled(rec: ToolCallRecord): void;
  /**
   * The summary being made in the background (actors/conversation/summary.ts): awaited only when this reply needs
   * compaction; null when it failed or was stopped.
   */
  summaryReady?: Promise<{ text: string; uptoSeq: number } | null>;
  /** Tools the visitor's page registered (offered when tools.client allows them). */
  pageTools?: PageToolSpec[];
  /** Asks the visitor to allow a tool marked needsConfirmation; resolves false when refused or unanswered. */
  confirm?(tool: { name: string; label: string }, args: Record<string, unknown>): Promise<boolean>;
}

export interface ReplyResult {
  text: string;
  moods: string[];
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number;
  toolCalls: ToolCallRecord[];
  endConversation: boolean;
  citations: Citation[];
  /** A new summary when the history was compacted inline for this reply (its cost is in usage). */
  summary: { text: string; uptoSeq: number } | null;
}

/** Images of this many most recent user messages go to the model; older ones are mentioned in words. */
const IMAGE_MESSAGES = 3;

/**
 * One agent reply: compaction if needed (a summary made ahead in the background, else inline), prompt, streaming, tool rounds up to brain.maxToolRounds (the last
 * round offers no tools, so the model must answer). Does not touch conversation state: the actor stores the
 * result when it comes back as a message.
 */
export async function runReply(input: ReplyInput): Promise<ReplyResult> {
  const { app, config, brain, conversation: conv, signal } = input;
  const usage = { inputTokens: 0, outputTokens: 0 };
  const addUsage = (u: { inputTokens: number; outputTokens: number }) => { usage.inputTokens += u.inputTokens; usage.outputTokens += u.outputTokens; };
  let history = input.history.filter((m) => m.visibility === 'visible');
  let summaryText = conv.summary?.text ?? null;
  let summary: ReplyResult['summary'] = null;

  input.onStatus('thinking');
  if (input.summaryReady && estimateTokens(history) > config.brain.compactAtTokens) {
    // A summary started in the background is on its way: the rest of that call is shorter than a new one.
    const ready = await input.summaryReady;
    if (ready && ready.uptoSeq > (conv.summary?.uptoSeq ?? -1)) {
      summaryText = ready.text;
      history = history.filter((m) => m.seq > ready.uptoSeq);
    }
  }
  // The inline path: nothing was made ahead, or the history grew past the limit even after it.
  if (estimateTokens(history) > config.brain.compactAtTokens) {
    const split = splitForCompaction(history, config.brain.compactAtTokens);
    if (split) {
      const s = await summarize(brain, summaryText, split.older, signal);
      addUsage(s.usage);
      summaryText = s.text;
      summary = { text: s.text, uptoSeq: split.older[split.older.length - 1].seq };
      history = split.recent;
    }
  }

  const ctxBase = { app, workspaceId: conv.workspaceId, botId: conv.botId, conversationId: conv._id, visitorId: conv.visitorId, config, pageTools: input.pageTools ?? [] };
  const registry = input.tools;
  const lastUser = [...history].reverse().find((m) => m.role === 'user');
  const [tools, contexts] = await Promise.all([
    registry.toolsFor(ctxBase),
    lastUser ? registry.contextFor({ ...ctxBase, query: lastUser.text }) : Promise.resolve([]),
  ]);
  const citations: NonNullable<ToolResult['citations']> = contexts.flatMap((c) => c.citations ?? []);
  // Excerpts given with the visitor's own question, before the reply (knowledge.mode auto or both).
  const givenBefore = citations.length;
  const expressions = config.face.expressions && config.tools.builtins.express;
  const system = buildSystemPrompt({
    config, prompt: conv.prompt, now: app.clock.now(), context: contexts, expressions,
    canEnd: tools.some((t) => t.name === 'end_conversation'), summary: summaryText,
  });
  const messages = await toChatMessages(app, brain, history);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const toolSpecs = tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));

  const mood = new MoodFilter();
  // The reply's pieces are kept as they came and joined once: a string built with += is a chain of cons strings,
  // each one more object that every scavenge during the reply copies.
  const shown: string[] = [];
  // Text after a tool round starts a new paragraph: the rounds are separate model turns, and joined as they came
  // they read "Let me check.It is 21C" in the widget, the stored message, transcripts and webhooks alike.
  let afterTools = false;
  const emit = (piece: string) => {
    // A leading mood tag leaves a space; the visible reply starts at its first word.
    if (!shown.length || afterTools) { piece = piece.replace(/^\s+/, ''); if (!piece) return; }
    if (afterTools && shown.length && !/\n\n$/.test(shown[shown.length - 1])) piece = `\n\n${piece}`;
    afterTools = false;
    shown.push(piece);
    input.onDelta(piece);
  };
  const toolCalls: ToolCallRecord[] = [];
  let endConversation = false;
  // This round's tool calls and raw text (mood tags included, for the assistant turn before the tool results).
  let calls: ToolCall[] = [];
  let roundText: string[] = [];
  const onEvent = (e: ChatEvent) => {
    if (e.type === 'text') {
      roundText.push(e.delta);
      // Tags are always removed (a model may write one unasked); only documented moods reach the face, and only
      // when the bot lets it change expression.
      const visible = mood.push(e.delta);
      if (visible) emit(visible);
      if (mood.moods.length) for (const m of mood.moods.splice(0)) if (expressions && isMood(m)) input.onMood(m);
    } else if (e.type === 'tool_call') calls.push(e.call);
    else if (e.type === 'usage') addUsage(e);
  };

  for (let round = 0; ; round++) {
    const offerTools = round < config.brain.maxToolRounds && toolSpecs.length > 0;
    calls = [];
    roundText = [];
    await brain.adapter.chat!({
      model: brain.model, system, messages, tools: offerTools ? toolSpecs : undefined,
      effort: config.brain.effort, temperature: config.brain.temperature, maxOutputTokens: config.brain.maxOutputTokens,
    }, onEvent, signal);
    if (!calls.length || !offerTools) break;
    messages.push({ role: 'assistant', content: roundText.join(''), toolCalls: calls });
    const pictures: ChatContentPart[] = [];
    for (const call of calls) {
      const { rec, content, result } = await runToolCall(input, byName.get(call.name), call, round, ctxBase);
      toolCalls.push(rec);
      input.onToolCalled(rec);
      if (result?.citations) citations.push(...result.citations);
      if (result?.endConversation) endConversation = true;
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
      for (const img of result?.images ?? []) pictures.push({ type: 'image', mimeType: img.mimeType, data: img.data });
    }
    // Tool results are text on every provider: pictures a tool took (look_at_camera) follow as a user turn.
    if (pictures.length) messages.push({ role: 'user', content: [{ type: 'text', text: '[Pictures from the tools just called]' }, ...pictures] });
    input.onStatus('thinking');
    afterTools = true;
  }
  const rest = mood.flush();
  if (rest) emit(rest);
  const text = shown.join('');
  const used = citationsUsed(text, lastUser?.text ?? '', citations);
  // A gap is a record for the owner, not part of the reply: its failure is logged, the reply goes on.
  await recordUnusedExcerpts(app, ctxBase, lastUser?.text ?? '', givenBefore, used.length, text)
    .catch((err) => app.log.warn({ err, conversationId: conv._id }, 'knowledge gap not recorded'));
  return {
    text, moods: mood.moods, usage, costUsd: estimateCostUsd(brain.model, usage), toolCalls, endConversation, summary,
    citations: used,
  };
}

async function toChatMessages(app: AppContext, brain: ChatBrain, history: MessageRecord[]): Promise<ChatMessage[]> {
  const withImages = new Set(history.filter((m) => m.role === 'user' && m.attachments.length).slice(-IMAGE_MESSAGES).map((m) => m._id));
  const out: ChatMessage[] = [];
  for (const m of history) {
    if (m.role === 'assistant') { out.push({ role: 'assistant', content: m.text }); continue; }
    const prefix = m.role === 'human_agent' ? `[Team member ${m.authorName ?? ''} wrote to the visitor] ` : m.role === 'system_event' ? '[System] ' : '';
    // Team replies and system lines are context for the model, not things the visitor said.
    if (m.role !== 'user') { out.push({ role: 'user', content: prefix + m.text }); continue; }
    if (!m.attachments.length) { out.push({ role: 'user', content: m.text }); continue; }
    if (!brain.canSee || !withImages.has(m._id)) {
      // Camera frames come with the vision proxy's words when the brain cannot see (src/voice/camera.ts).
      const seen = m.attachments.flatMap((a) => (a.camera?.description ? [`[The visitor's camera showed: ${a.camera.description}]`] : []));
      const rest = m.attachments.length - seen.length;
      out.push({ role: 'user', content: [m.text, ...seen, ...(rest ? [`[${rest} image(s) attached earlier]`] : [])].filter(Boolean).join('\n') });
      continue;
    }
    const parts: ChatContentPart[] = [];
    if (m.text) parts.push({ type: 'text', text: m.text });
    for (const a of m.attachments) {
      const file = await app.store.files.get(m.workspaceId, a.id);
      if (file) parts.push({ type: 'image', mimeType: a.mimeType, data: file.data });
    }
    out.push({ role: 'user', content: parts.length ? parts : m.text });
  }
  // Providers want the conversation to start with a user turn.
  while (out.length && out[0].role === 'assistant') out.shift();
  return out;
}
