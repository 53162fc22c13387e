/**
 * The period of an analytics report (the spec leaves its parameters open). Query parameters:
 *   from, to  UTC days YYYY-MM-DD, both included (to defaults to today, from to 29 days before `to`)
 *   days      N days ending today (1 to 366), instead of from/to
 *   botId     only this bot
 * Default: the last 30 days, today included. Days are UTC days.
 */
import { z } from 'zod';
import { utcDay } from '../chat/records.js';
import { invalid } from '../errors.js';

export const MAX_DAYS = 366;
const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a UTC day as YYYY-MM-DD').refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && utcDay(Date.parse(`${s}T00:00:00Z`)) === s, 'not a calendar day');

export const PeriodQuery = z.strictObject({
  from: Day.optional(),
  to: Day.optional(),
  days: z.coerce.number().int().min(1).max(MAX_DAYS).optional(),
  botId: z.string().min(1).max(100).optional(),
});
export type PeriodInput = z.infer<typeof PeriodQuery>;

export interface Period { from: string; to: string; days: string[]; botId?: string }

const DAY_MS = 86_400_000;
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);

export function resolvePeriod(q: PeriodInput, now: number): Period {
  if (q.days !== undefined && (q.from || q.to)) throw invalid('days: give either days or from/to, not both');
  const to = q.to ?? utcDay(now);
  const from = q.from ?? utcDay(dayMs(to) - ((q.days ?? 30) - 1) * DAY_MS);
  if (from > to) throw invalid('from: must not be after to');
  const count = (dayMs(to) - dayMs(from)) / DAY_MS + 1;
  if (count > MAX_DAYS) throw invalid(`from: a period is at most ${MAX_DAYS} days`);
  const days = Array.from({ length: count }, (_, i) => utcDay(dayMs(from) + i * DAY_MS));
  return { from, to, days, ...(q.botId ? { botId: q.botId } : {}) };
}
