/** Analytics (service-api.md, Analytics): summary, per-day series, tool use, provider usage. Period: src/analytics/period.ts. */
import { periodOf, PeriodQuery } from '../../analytics/period.js';
import type { AnalyticsRollup } from '../../analytics/rollup.js';
import { summary, timeseries, toolUse, usage } from '../../analytics/service.js';
import { z } from 'zod';
import { route, type ApiModule } from '../define.js';

const Scope = { from: z.string(), to: z.string(), botId: z.string().nullable() };
const Totals = {
  conversations: z.number(), conversationsEnded: z.number(),
  messages: z.object({ visitor: z.number(), agent: z.number(), team: z.number(), system: z.number() }),
  leads: z.number().describe('every lead captured, including those added by hand or by API'),
  leadsInConversations: z.number().describe('leads captured in a conversation (the share of conversations that ended in a lead)'),
  handoffs: z.object({
    requested: z.number(), accepted: z.number(), resolved: z.number(),
    takenOver: z.number().describe('takeovers by the team, whether or not they answered a handoff request'),
  }),
  feedback: z.object({ thumbsUp: z.number(), thumbsDown: z.number(), csatCount: z.number(), csatAverage: z.number().nullable() }),
  tools: z.object({ calls: z.number(), errors: z.number() }),
  tokens: z.object({ input: z.number(), output: z.number() }),
  costUsd: z.number(),
};
const SummaryResponse = z.object({ ...Scope, ...Totals });
const TimeseriesResponse = z.object({ ...Scope, items: z.array(z.object({ day: z.string(), ...Totals })) });
const ToolsResponse = z.object({ ...Scope, items: z.array(z.object({
  name: z.string(), calls: z.number(), errors: z.number(), errorRate: z.number(), avgDurationMs: z.number(), p95DurationMs: z.number().nullable(),
})) });
const ModelUse = { replies: z.number(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number() };
const UsageResponse = z.object({ ...Scope, items: z.array(z.object({ model: z.string(), ...ModelUse })), total: z.object(ModelUse), note: z.string() });

/** Reports read the counters after the rollup has written what it gathered. */
export const analyticsModule = (services: { analytics: AnalyticsRollup }): ApiModule => ({
  name: 'analytics',
  routes: [
    route({ op: 'GET /api/v1/analytics/summary', query: PeriodQuery, response: SummaryResponse,
      handler: async ({ app, workspaceId, query }) => summary(app, services.analytics, workspaceId, await periodOf(app, workspaceId, query)) }),
    route({ op: 'GET /api/v1/analytics/timeseries', query: PeriodQuery, response: TimeseriesResponse,
      handler: async ({ app, workspaceId, query }) => timeseries(app, services.analytics, workspaceId, await periodOf(app, workspaceId, query)) }),
    route({ op: 'GET /api/v1/analytics/tools', query: PeriodQuery, response: ToolsResponse,
      handler: async ({ app, workspaceId, query }) => toolUse(app, services.analytics, workspaceId, await periodOf(app, workspaceId, query)) }),
    route({ op: 'GET /api/v1/analytics/usage', query: PeriodQuery, response: UsageResponse,
      handler: async ({ app, workspaceId, query }) => usage(app, services.analytics, workspaceId, await periodOf(app, workspaceId, query)) }),
  ],
});
