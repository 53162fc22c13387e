/**
 * What a visitor already told us: the values of the leads they left with this bot (the start form, the agent's
 * capture_lead, an earlier form). A later form (before a handoff, away or offline) asks only for the rest, and is
 * not shown at all when nothing is left to ask; its answer is completed with what is known.
 */
import type { AppContext } from '../app/context.js';
import type { LeadField } from './form.js';

/** How many of the visitor's leads are read (newest win on a field both carry). */
const LEADS_READ = 20;

export async function knownLeadValues(
  app: AppContext, who: { workspaceId: string; botId?: string; visitorId?: string | null },
): Promise<Record<string, string>> {
  if (!who.visitorId || !who.botId) return {};
  const rows = await app.records.leads.find(
    { workspaceId: who.workspaceId, botId: who.botId, visitorId: who.visitorId }, { sort: [['createdAt', -1]], limit: LEADS_READ },
  );
  const known: Record<string, string> = {};
  for (const lead of rows.reverse()) for (const [k, v] of Object.entries(lead.fields)) if (v) known[k] = v;
  return known;
}

/** The form's fields the visitor has not answered yet (empty: nothing to ask). */
export async function fieldsLeftToAsk(
  app: AppContext, who: { workspaceId: string; botId?: string; visitorId?: string | null }, fields: LeadField[],
): Promise<LeadField[]> {
  const known = await knownLeadValues(app, who);
  return fields.filter((f) => !known[f.key]);
}
