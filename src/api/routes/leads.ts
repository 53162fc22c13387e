/** Leads (service-api.md, Leads): list, CSV export, add from outside systems, status change, delete. */
import { z } from 'zod';
import { findBot } from '../../bots/bot-source.js';
import { BotConfigSchema } from '../../bots/config/index.js';
import { badRequest, invalid, notFound } from '../../kernel/errors.js';
import { MAX_VALUE_CHARS, validateLeadFields, type LeadField } from '../../leads/form.js';
import { deleteLead, LEAD_STATUSES, leadsCsv, leadView, listLeads, saveLead, setLeadStatus } from '../../leads/service.js';
import { reply, route, type ApiModule } from '../define.js';
import { pageOf } from './list-schemas.js';
import type { AppContext } from '../../app/context.js';

const Status = z.enum(LEAD_STATUSES);
export const LeadsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  before: z.string().min(1).max(100).optional(),
  botId: z.string().min(1).max(100).optional(),
  status: Status.optional(),
});
export const CsvQuery = LeadsQuery.omit({ limit: true, before: true });
export const AddLeadBody = z.strictObject({
  botId: z.string().min(1).max(100),
  fields: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'keys are lower case letters, digits and _'), z.string().max(MAX_VALUE_CHARS)),
});
export const PatchLeadBody = z.strictObject({ status: Status });

const LeadShape = z.object({
  id: z.string(), botId: z.string(), conversationId: z.string().nullable(), visitorId: z.string().nullable(),
  fields: z.record(z.string(), z.string()), status: Status, source: z.enum(['tool', 'form', 'api']), createdAt: z.number(), updatedAt: z.number(),
});
const ListShape = pageOf(LeadShape);

/** Fields of the bot's lead form: the published config's, else the draft's (a bot used only through the API). */
async function botFields(app: AppContext, workspaceId: string, botId: string): Promise<LeadField[]> {
  const bot = await findBot(app, botId);
  if (!bot || bot.workspaceId !== workspaceId) throw notFound('bot');
  const parsed = BotConfigSchema.safeParse(bot.published?.config ?? bot.draft ?? {});
  if (!parsed.success) throw badRequest('botId: the bot has no valid config');
  return parsed.data.behavior.leadCapture.fields as LeadField[];
}

export const leadsModule: ApiModule = {
  name: 'leads',
  routes: [
    route({ op: 'GET /api/v1/leads', query: LeadsQuery, response: ListShape,
      handler: ({ app, workspaceId, query }) => listLeads(app, workspaceId, query) }),
    route({ op: 'GET /api/v1/leads.csv', query: CsvQuery,
      produces: { contentTypes: ['text/csv'], description: 'the leads as CSV (a header row, then one row per lead), sent as an attachment' },
      handler: async ({ app, workspaceId, query }) => reply({
        status: 200,
        headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="leads.csv"', 'Cache-Control': 'no-store' },
        body: await leadsCsv(app, workspaceId, query),
      }) }),
    route({ op: 'POST /api/v1/leads', body: AddLeadBody, response: LeadShape, status: 201,
      handler: async (ctx) => {
        const fields = await botFields(ctx.app, ctx.workspaceId, ctx.body.botId);
        const checked = validateLeadFields(fields, ctx.body.fields);
        if (!checked.ok) throw invalid(checked.message);
        const lead = await saveLead(ctx.app, { workspaceId: ctx.workspaceId, botId: ctx.body.botId, conversationId: null, visitorId: null, fields: checked.values, source: 'api' });
        await ctx.audit('lead.create', { type: 'lead', id: lead._id });
        return leadView(lead);
      } }),
    route({ op: 'PATCH /api/v1/leads/{id}', body: PatchLeadBody, response: LeadShape,
      handler: async (ctx) => {
        const lead = await setLeadStatus(ctx.app, ctx.workspaceId, ctx.params.id, ctx.body.status);
        await ctx.audit('lead.status', { type: 'lead', id: lead._id }, { status: lead.status });
        return leadView(lead);
      } }),
    route({ op: 'DELETE /api/v1/leads/{id}',
      handler: async (ctx) => {
        await deleteLead(ctx.app, ctx.workspaceId, ctx.params.id);
        await ctx.audit('lead.delete', { type: 'lead', id: ctx.params.id });
      } }),
  ],
};
