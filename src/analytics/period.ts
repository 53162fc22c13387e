/**
 * The period of an analytics report (the spec leaves its parameters open). Query parameters:
 *   from, to  days YYYY-MM-DD of the workspace's time zone, both included (to defaults to today, from to 29 days
 *             before `to`)
 *   days      N days ending today (1 to 366), instead of from/to
 *   botId     only this bot
 * Default: the last 30 days, today included. A day is a calendar day in the workspace's `timezone` setting
 * (UTC unless set), the same days the counters are kept by (rollup.ts).
 */
import { z } from 'zod';
import type { AppContext } from '../app/context.js';
import { workspaceTimezone } from '../auth/settings.js';
import { utcDay } from '../records/conversations.js';
import { invalid } from '../kernel/errors.js';

export const MAX_DAYS = 366;
const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD').refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && utcDay(Date.parse(`${s}T00:00:00Z`)) === s, 'not a calendar day');

export const PeriodQuery = z.strictObject({
  from: Day.optional(),
  to: Day.optional(),
  days: z.coerce.number().int().min(1).max(MAX_DAYS).optional(),
  botId: z.string().min(1).max(100).optional(),
});
export type PeriodInput = z.infer<typeof PeriodQuery>;

export interface Period { from: string; to: string; days: string[]; botId?: string }

const DAY_MS = 86_400_000;
// Calendar arithmetic on day names: midnight UTC of a name, stepped by whole days, names the next calendar day.
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) that the instant `ms` falls on in `timeZone`. */
export function dayIn(ms: number, timeZone: string): string {
  if (timeZone === 'UTC') return utcDay(ms);
  let f = formatters.get(timeZone);
  if (!f) formatters.set(timeZone, f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }));
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(ms)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** `now` decides "today" in `timeZone`; from/to are already that zone's days. */
export function resolvePeriod(q: PeriodInput, now: number, timeZone = 'UTC'): Period {
  if (q.days !== undefined && (q.from || q.to)) throw invalid('days: give either days or from/to, not both');
  const to = q.to ?? dayIn(now, timeZone);
  const from = q.from ?? utcDay(dayMs(to) - ((q.days ?? 30) - 1) * DAY_MS);
  if (from > to) throw invalid('from: must not be after to');
  const count = (dayMs(to) - dayMs(from)) / DAY_MS + 1;
  if (count > MAX_DAYS) throw invalid(`from: a period is at most ${MAX_DAYS} days`);
  const days = Array.from({ length: count }, (_, i) => utcDay(dayMs(from) + i * DAY_MS));
  return { from, to, days, ...(q.botId ? { botId: q.botId } : {}) };
}

/** The period a workspace's report covers, in its time zone. */
export async function periodOf(app: AppContext, workspaceId: string, q: PeriodInput): Promise<Period> {
  return resolvePeriod(q, app.clock.now(), await workspaceTimezone(app, workspaceId));
}
