import type { AppContext } from '../../src/app/context.js';
import { expressTool } from '../../src/conversation/builtins.js';
import type { ChatBot } from '../../src/bots/bot-source.js';
import { buildSystemPrompt } from '../../src/conversation/prompt.js';
import type { ConversationRecord, MessageRecord } from '../../src/records/conversations.js';
import type { VoiceSessionSpec } from '../../src/providers/voice-engine.js';
import type { VoiceSetup } from '../../src/voice/voice-setup.js';
import type { PageToolSpec } from '../../src/tools/page-tools.js';
import type { AgentTool, ToolRegistry } from '../../src/tools/registry.js';

/** Spoken replies are capped at 2048 tokens (bot-config.md, brain.maxOutputTokens). */
export const SPOKEN_REPLY_MAX_TOKENS = 2048;
/** Earlier messages handed to the engine when a session starts (the engine keeps its own context after). */
const HISTORY_MESSAGES = 40;

const VOICE_RULES = [
  'You are talking with the visitor by voice: your words are spoken aloud. Keep replies short and conversational.',
  'Never use Markdown, lists, tables, links or emoji; say numbers, dates and addresses the way people say them.',
  'If you did not understand the visitor, ask them to repeat.',
].join(' ');

/** The tools a voice session offers: the text agent's tools, plus express for the face instead of mood tags. */
export async function voiceTools(registry: ToolRegistry, app: AppContext, chat: ChatBot, conv: ConversationRecord, pageTools: PageToolSpec[]): Promise<AgentTool[]> {
  const config = chat.config;
  // Page tools ride on the context (src/tools/page-tools.ts PageToolContext).
  const ctx = { app, workspaceId: conv.workspaceId, botId: conv.botId, conversationId: conv._id, visitorId: conv.visitorId, config, pageTools };
  const tools = await registry.toolsFor(ctx);
  if (config.face.expressions && config.tools.builtins.express) tools.push(expressTool);
  return tools;
}

/** What the engine is told when the session opens: prompt, voice, turn detection, tools, the conversation so far. */
export function voiceSpec(input: {
  chat: ChatBot; setup: VoiceSetup; conv: ConversationRecord; history: MessageRecord[]; tools: AgentTool[]; now: number; ptt: boolean;
}): VoiceSessionSpec {
  const { config } = input.chat;
  const instructions = buildSystemPrompt({
    config, prompt: input.conv.prompt, now: input.now, context: [], expressions: false,
    canEnd: input.tools.some((t) => t.name === 'end_conversation'), summary: input.conv.summary?.text ?? null,
  });
  const express = input.tools.some((t) => t.name === 'express') ? ' You have a face: call express to change its expression when it fits.' : '';
  const history = input.history
    .filter((m) => m.visibility === 'visible' && m.text && (m.role === 'user' || m.role === 'assistant' || m.role === 'human_agent'))
    .slice(-HISTORY_MESSAGES)
    .map((m) => ({
      role: m.role === 'user' ? 'user' as const : 'assistant' as const,
      text: m.role === 'human_agent' ? `[Team member ${m.authorName ?? ''} wrote] ${m.text}` : m.text,
    }));
  const r = config.voice.realtime;
  return {
    model: input.setup.model, voice: input.setup.voice,
    instructions: `${instructions}\n\n${VOICE_RULES}${express}`,
    tools: input.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    language: config.identity.languagePolicy === 'fixed' ? config.identity.language : null,
    turnDetection: input.ptt ? null : { type: r.turnDetection, eagerness: r.eagerness },
    bargeIn: config.voice.bargeIn,
    maxOutputTokens: Math.min(SPOKEN_REPLY_MAX_TOKENS, config.brain.maxOutputTokens),
    history,
  };
}
