/** Leads from conversations: the capture_lead tool the agent calls, and the widget's lead form. */
import type { AppContext } from '../app/context.js';
import { loadBotForChat } from '../bots/bot-source.js';
import type { AgentTool, ToolSource } from '../tools/registry.js';
import { validateLeadFields, type LeadField } from '../leads/form.js';
import { knownLeadValues } from '../leads/known.js';
import { saveLead, type LeadRecord } from '../leads/service.js';

function toolFor(fields: LeadField[]): AgentTool {
  const properties: Record<string, unknown> = {};
  for (const f of fields) {
    properties[f.key] = {
      type: 'string',
      description: `${f.label}${f.type === 'email' ? ' (e-mail address)' : f.type === 'tel' ? ' (phone number)' : ''}`,
      ...(f.type === 'select' && f.options?.length ? { enum: f.options } : {}),
    };
  }
  return {
    name: 'capture_lead',
    description: 'Save the visitor\'s contact details once they have given them. Ask for the required ones first; never invent values.',
    parameters: { type: 'object', properties, required: fields.filter((f) => f.required).map((f) => f.key), additionalProperties: false },
    source: 'builtin',
    label: 'Saving your details',
    async run(args, ctx) {
      const checked = validateLeadFields(fields, args);
      if (!checked.ok) return { content: `Not saved: ${checked.message}. Ask the visitor for it and call capture_lead again.`, isError: true };
      const lead = await saveLead(ctx.app, {
        workspaceId: ctx.workspaceId, botId: ctx.botId, conversationId: ctx.conversationId, visitorId: ctx.visitorId, fields: checked.values, source: 'tool',
      });
      return { content: `Saved (lead ${lead._id}). Thank the visitor; the team will get back to them.` };
    },
  };
}

/** capture_lead exists whenever lead capture is on (bot-config.md, behavior.leadCapture), unless switched off in tools.builtins. */
export const leadToolSource: ToolSource = {
  name: 'leads',
  tools(ctx) {
    const lc = ctx.config?.behavior?.leadCapture;
    if (!lc?.enabled || ctx.config?.tools?.builtins?.capture_lead === false) return [];
    return [toolFor(lc.fields as LeadField[])];
  },
};

/**
 * The visitor sent the lead form (widget frame { t: 'lead', fields }). The fields are those of the bot version
 * the conversation runs with; `formShown` tells that an offline flow showed the form while lead capture is off. Returns the saved lead, or the first problem naming the field.
 */
export async function submitLeadForm(
  app: AppContext, input: { conversationId: string; visitorId: string; fields: Record<string, unknown>; formShown?: boolean },
): Promise<{ ok: true; lead: LeadRecord } | { ok: false; code: 'not_found' | 'forbidden' | 'invalid'; message: string }> {
  const conv = await app.records.conversations.findOne({ _id: input.conversationId }, { crossWorkspace: true });
  if (!conv) return { ok: false, code: 'not_found', message: 'conversation not found' };
  if (conv.visitorId !== input.visitorId) return { ok: false, code: 'forbidden', message: 'this conversation belongs to another visitor' };
  const chat = await loadBotForChat(app, conv.botId, { version: conv.configVersion });
  if (!chat) return { ok: false, code: 'not_found', message: 'bot not found' };
  // The form is answered only when lead capture is on, or an offline flow showed it (handoff offlineAction lead_form).
  if (!chat.config.behavior.leadCapture.enabled && !input.formShown) {
    return { ok: false, code: 'forbidden', message: 'no lead form was shown (behavior.leadCapture is off)' };
  }
  // A later form asks only what is not known yet (known.ts): what the visitor told before completes the lead.
  const fields = chat.config.behavior.leadCapture.fields as LeadField[];
  const known = await knownLeadValues(app, conv);
  const given = { ...Object.fromEntries(fields.filter((f) => known[f.key]).map((f) => [f.key, known[f.key]])), ...input.fields };
  const checked = validateLeadFields(fields, given);
  if (!checked.ok) return { ok: false, code: 'invalid', message: checked.message };
  const lead = await saveLead(app, {
    workspaceId: conv.workspaceId, botId: conv.botId, conversationId: conv._id, visitorId: conv.visitorId, fields: checked.values, source: 'form',
  });
  return { ok: true, lead };
}
