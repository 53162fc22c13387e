/** Analytics reports (service-api.md, Analytics) from the daily counters of rollup.ts. */
import type { AppContext } from '../app/context.js';
import type { Filter } from '../store/types.js';
import type { Period } from './period.js';
import { COUNTERS, type AnalyticsRollup, type Counter } from './rollup.js';

type Totals = Record<Counter, number>;
const zero = (): Totals => Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Totals;
const round = (n: number, places = 6) => Math.round(n * 10 ** places) / 10 ** places;
const scope = (workspaceId: string, p: Period): Filter => ({ workspaceId, day: { $gte: p.from, $lte: p.to }, ...(p.botId ? { botId: p.botId } : {}) });

function view(t: Totals) {
  return {
    conversations: t.conversations, conversationsEnded: t.conversationsEnded,
    messages: { visitor: t.visitorMessages, agent: t.replies, team: t.teamMessages, system: t.systemMessages },
    leads: t.leads, leadsInConversations: t.leadsInConversations,
    handoffs: { requested: t.handoffsRequested, accepted: t.handoffsAccepted, resolved: t.handoffsResolved, takenOver: t.takeovers },
    feedback: {
      thumbsUp: t.thumbsUp, thumbsDown: t.thumbsDown, csatCount: t.csatCount,
      csatAverage: t.csatCount ? round(t.csatSum / t.csatCount, 2) : null,
    },
    tools: { calls: t.toolCalls, errors: t.toolErrors },
    tokens: { input: t.inputTokens, output: t.outputTokens },
    costUsd: round(t.costUsd),
  };
}

async function dailyRows(app: AppContext, rollup: AnalyticsRollup, workspaceId: string, p: Period) {
  await rollup.idle();
  return app.records.analyticsDaily.find(scope(workspaceId, p), { sort: [['day', 1]] });
}

export async function summary(app: AppContext, rollup: AnalyticsRollup, workspaceId: string, p: Period) {
  const t = zero();
  for (const r of await dailyRows(app, rollup, workspaceId, p)) for (const c of COUNTERS) t[c] += r[c] ?? 0;
  return { from: p.from, to: p.to, botId: p.botId ?? null, ...view(t) };
}

export async function timeseries(app: AppContext, rollup: AnalyticsRollup, workspaceId: string, p: Period) {
  const byDay = new Map(p.days.map((d) => [d, zero()]));
  for (const r of await dailyRows(app, rollup, workspaceId, p)) {
    const t = byDay.get(r.day);
    if (t) for (const c of COUNTERS) t[c] += r[c] ?? 0;
  }
  return { from: p.from, to: p.to, botId: p.botId ?? null, items: p.days.map((day) => ({ day, ...view(byDay.get(day)!) })) };
}

export async function toolUse(app: AppContext, rollup: AnalyticsRollup, workspaceId: string, p: Period) {
  await rollup.idle();
  const rows = await app.records.analyticsTools.find(scope(workspaceId, p));
  const byName = new Map<string, { calls: number; errors: number; totalMs: number; durations: number[] }>();
  for (const r of rows) {
    const t = byName.get(r.name) ?? { calls: 0, errors: 0, totalMs: 0, durations: [] };
    t.calls += r.calls; t.errors += r.errors; t.totalMs += r.totalMs;
    for (const ms of r.durations ?? []) t.durations.push(ms);
    byName.set(r.name, t);
  }
  const tools = [...byName].map(([name, t]) => {
    const sorted = t.durations.sort((a, b) => a - b);
    return {
      name, calls: t.calls, errors: t.errors, errorRate: t.calls ? round(t.errors / t.calls, 4) : 0,
      avgDurationMs: t.calls ? Math.round(t.totalMs / t.calls) : 0,
      // Nearest-rank p95 over the period's duration samples (rollup.ts DURATION_SAMPLES).
      p95DurationMs: sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] : null,
    };
  }).sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name));
  return { from: p.from, to: p.to, botId: p.botId ?? null, items: tools };
}

export async function usage(app: AppContext, rollup: AnalyticsRollup, workspaceId: string, p: Period) {
  await rollup.idle();
  const rows = await app.records.analyticsModels.find(scope(workspaceId, p));
  const byModel = new Map<string, { replies: number; inputTokens: number; outputTokens: number; costUsd: number }>();
  for (const r of rows) {
    const t = byModel.get(r.model) ?? { replies: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    t.replies += r.replies; t.inputTokens += r.inputTokens; t.outputTokens += r.outputTokens; t.costUsd += r.costUsd;
    byModel.set(r.model, t);
  }
  const models = [...byModel].map(([model, t]) => ({ model, ...t, costUsd: round(t.costUsd) })).sort((a, b) => b.costUsd - a.costUsd || a.model.localeCompare(b.model));
  const total = models.reduce((s, m) => ({
    replies: s.replies + m.replies, inputTokens: s.inputTokens + m.inputTokens, outputTokens: s.outputTokens + m.outputTokens, costUsd: round(s.costUsd + m.costUsd),
  }), { replies: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  return { from: p.from, to: p.to, botId: p.botId ?? null, items: models, total, note: 'estimated from built-in list prices; unknown models count as free' };
}
