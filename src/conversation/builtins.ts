import type { AgentTool, ToolSource } from '../tools/registry.js';
import { MOODS } from './prompt.js';

/**
 * Builtin tools owned by the conversation engine. end_conversation is offered in text replies; express is
 * for voice engines (text replies use mood tags instead), exported for them to offer.
 */
export const endConversationTool: AgentTool = {
  name: 'end_conversation',
  description: 'End the conversation. Call it only after saying goodbye, when the visitor has nothing more to ask.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  source: 'builtin',
  label: 'Ending the conversation',
  async run() {
    return { content: 'The conversation will end after this reply.', endConversation: true };
  },
};

export const expressTool: AgentTool = {
  name: 'express',
  description: `Change the expression of your face. Moods: ${MOODS.join(', ')}.`,
  parameters: { type: 'object', properties: { mood: { type: 'string', enum: [...MOODS] } }, required: ['mood'], additionalProperties: false },
  source: 'builtin',
  label: 'Expressing',
  async run(args) {
    const mood = String(args.mood ?? '');
    if (!(MOODS as readonly string[]).includes(mood)) return { content: `unknown mood ${JSON.stringify(mood)}; use one of ${MOODS.join(', ')}`, isError: true };
    return { content: `ok: ${mood}` };
  },
};

export const builtinToolSource: ToolSource = {
  name: 'chat-builtins',
  tools(ctx) {
    const b = ctx.config?.tools?.builtins;
    return b?.end_conversation === false ? [] : [endConversationTool];
  },
};
