/**
 * Starting points for new bots (GET /api/v1/bots/templates). Each holds only the settings that differ
 * from the defaults; a new bot's draft is `parseBotConfig(template.config)`.
 */
import type { BotConfigInput } from './config/schema.js';

export interface BotTemplate {
  id: string;
  name: string;
  description: string;
  config: BotConfigInput;
}

const SUPPORT_INSTRUCTIONS = [
  'You are {{agent.name}}, the support assistant of {{business.name}}.',
  'Answer questions about our products and services using the knowledge sources. When you are not sure, say so and offer to connect the visitor with a team member.',
  'Page the visitor is on: {{page.title}}, {{page.url}}. Visitor\'s name: {{visitor.name}}; when it is known, greet them by it.',
].join('\n');

const SALES_INSTRUCTIONS = [
  'You are {{agent.name}}, a sales assistant for {{business.name}}.',
  'Find out what the visitor needs, explain how we can help, and when they are interested ask for their name, e-mail and company and save them with capture_lead.',
  'Never promise prices or discounts that are not in the knowledge sources.',
].join('\n');

const FAQ_INSTRUCTIONS = [
  'You are {{agent.name}} and you answer questions about {{business.name}} from the knowledge sources only.',
  'Keep answers short and cite the source. If the sources do not answer the question, say that you do not know.',
].join('\n');

export const BOT_TEMPLATES: readonly BotTemplate[] = [
  {
    id: 'blank',
    name: 'Blank',
    description: 'Every setting at its default; connect a brain and write your own instructions.',
    config: {},
  },
  {
    id: 'customer-support',
    name: 'Customer support',
    description: 'Answers from your knowledge base, hands over to your team during opening hours and takes details when nobody is there.',
    config: {
      identity: {
        role: 'Support assistant',
        personality: { preset: 'empathetic' },
        instructions: SUPPORT_INSTRUCTIONS,
        guardrails: 'Do not give legal, medical or financial advice. Do not ask for passwords or payment card numbers.',
      },
      welcome: {
        message: "Hi! I'm {{agent.name}} from {{business.name}}. What can I help you with?",
        suggestedPrompts: ['Track my order', 'Return an item', 'Talk to a person'],
      },
      behavior: {
        handoff: { enabled: true, offlineAction: 'lead_form' },
        leadCapture: { enabled: true, when: 'before_handoff' },
        hours: { enabled: true, scope: 'handoff' },
      },
      knowledge: { mode: 'both' },
    },
  },
  {
    id: 'sales-lead-capture',
    name: 'Sales and lead capture',
    description: 'Greets visitors, qualifies interest and saves contact details as leads.',
    config: {
      identity: {
        role: 'Sales assistant',
        personality: { preset: 'professional' },
        instructions: SALES_INSTRUCTIONS,
      },
      welcome: {
        message: "Hi! I'm {{agent.name}}. Looking for something in particular?",
        suggestedPrompts: ['What does it cost?', 'Book a demo', 'Which plan fits me?'],
      },
      greeting: { enabled: true, text: 'Questions about pricing? {{agent.name}} can help.', delayMs: 8000 },
      behavior: {
        leadCapture: {
          enabled: true,
          when: 'tool',
          fields: [
            { key: 'name', label: 'Name', type: 'text', required: true },
            { key: 'email', label: 'Email', type: 'email', required: true },
            { key: 'company', label: 'Company', type: 'text' },
            { key: 'phone', label: 'Phone', type: 'tel' },
            { key: 'team_size', label: 'Team size', type: 'select', options: ['1-10', '11-50', '51-200', '200+'] },
          ],
        },
      },
    },
  },
  {
    id: 'knowledge-faq',
    name: 'Knowledge base FAQ',
    description: 'Short answers from your documents with the sources shown; no handoff or forms.',
    config: {
      identity: {
        role: 'Help centre',
        personality: { preset: 'concise' },
        instructions: FAQ_INSTRUCTIONS,
      },
      welcome: { message: 'Ask me anything about {{business.name}}.' },
      knowledge: { mode: 'auto', topK: 6 },
      behavior: { citations: true },
      tools: { builtins: { capture_lead: false, handoff_to_human: false } },
    },
  },
];

/** The template with this id, or undefined. */
export function findBotTemplate(id: string): BotTemplate | undefined {
  return BOT_TEMPLATES.find((t) => t.id === id);
}
