/**
 * Leads (service-api.md, Leads): saved by the capture_lead tool, the widget's lead form and POST /leads;
 * listed newest first, exported as CSV, their status changed, deleted. Every save publishes lead.captured.
 */
import { stringify } from 'csv-stringify/sync';
import type { AppContext } from '../app/context.js';
import type { RecordSpecs } from '../app/records.js';
import { notFound } from '../kernel/errors.js';
import { newId } from '../store/ids.js';
import type { Collection, Doc, Filter } from '../store/types.js';

/** Lead statuses (the spec leaves them open): the usual sales pipeline, new first. */
export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'won', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
export type LeadSource = 'tool' | 'form' | 'api';

export interface LeadRecord extends Doc {
  botId: string;
  /** Null for leads added by API. */
  conversationId: string | null;
  visitorId: string | null;
  fields: Record<string, string>;
  status: LeadStatus;
  source: LeadSource;
  createdAt: number;
  updatedAt: number;
}

declare module '../app/records.js' {
  interface Records {
    leads: Collection<LeadRecord>;
  }
}
/** Opened once at start-up (src/records-root.ts). */
export const leadRecords = {
  leads: { name: 'leads', indexes: [
    { fields: [['workspaceId', 1], ['createdAt', 1]] },
    { fields: [['workspaceId', 1], ['conversationId', 1]] },
    { fields: [['workspaceId', 1], ['visitorId', 1]] },
  ] },
} satisfies RecordSpecs<'leads'>;

export const leadView = (l: LeadRecord) => ({
  id: l._id, botId: l.botId, conversationId: l.conversationId, visitorId: l.visitorId, fields: l.fields,
  status: l.status, source: l.source, createdAt: l.createdAt, updatedAt: l.updatedAt,
});
export type LeadView = ReturnType<typeof leadView>;

export interface SaveLeadInput {
  workspaceId: string;
  botId: string;
  conversationId: string | null;
  visitorId: string | null;
  /** Already validated against the bot's fields (validateLeadFields). */
  fields: Record<string, string>;
  source: LeadSource;
}

export async function saveLead(app: AppContext, input: SaveLeadInput): Promise<LeadRecord> {
  const now = app.clock.now();
  const lead: LeadRecord = { _id: newId('lead', now), ...input, status: 'new', createdAt: now, updatedAt: now };
  await app.records.leads.insertOne(lead);
  await app.events.publish(input.workspaceId, 'lead.captured', {
    botId: lead.botId, conversationId: lead.conversationId, leadId: lead._id, fields: lead.fields,
  });
  return lead;
}

export interface LeadQuery { limit?: number; before?: string; botId?: string; status?: LeadStatus }

const filterOf = (workspaceId: string, q: LeadQuery): Filter => ({
  workspaceId, ...(q.botId ? { botId: q.botId } : {}), ...(q.status ? { status: q.status } : {}),
});

export async function listLeads(app: AppContext, workspaceId: string, q: LeadQuery): Promise<{ items: LeadView[]; nextBefore: string | null }> {
  const limit = q.limit ?? 50;
  const rows = await app.records.leads.find(filterOf(workspaceId, q), { limit: limit + 1, before: q.before });
  const page = rows.slice(0, limit);
  return { items: page.map(leadView), nextBefore: rows.length > limit ? page[page.length - 1]._id : null };
}

export async function setLeadStatus(app: AppContext, workspaceId: string, id: string, status: LeadStatus): Promise<LeadRecord> {
  const updated = await app.records.leads.updateOne({ workspaceId, _id: id }, { $set: { status, updatedAt: app.clock.now() } });
  if (!updated) throw notFound('lead');
  return updated;
}

export async function deleteLead(app: AppContext, workspaceId: string, id: string): Promise<void> {
  if (!(await app.records.leads.deleteOne({ workspaceId, _id: id }))) throw notFound('lead');
}

/** Largest CSV export, newest first: beyond it, narrow by botId or status. */
export const CSV_MAX_ROWS = 50_000;

/**
 * Spreadsheets run a cell that starts with = + - @ (or tab / carriage return, which some strip first) as a
 * formula; a leading single quote makes it plain text (OWASP CSV injection advice).
 */
export function safeCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** All leads as CSV: fixed columns, then one column per field key in order of first appearance. */
export async function leadsCsv(app: AppContext, workspaceId: string, q: LeadQuery): Promise<string> {
  const rows = await app.records.leads.find(filterOf(workspaceId, q), { limit: CSV_MAX_ROWS });
  const keys: string[] = [];
  for (const l of rows) for (const k of Object.keys(l.fields)) if (!keys.includes(k)) keys.push(k);
  const header = ['leadId', 'createdAt', 'status', 'source', 'botId', 'conversationId', ...keys];
  const records = rows.map((l) => [
    l._id, new Date(l.createdAt).toISOString(), l.status, l.source, l.botId, l.conversationId ?? '',
    ...keys.map((k) => l.fields[k] ?? ''),
  ].map(safeCell));
  return stringify([header.map(safeCell), ...records], { bom: true, record_delimiter: 'windows' });
}
