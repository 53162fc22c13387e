/** Analytics (service-api.md, Analytics): summary, per-day series, tool use, provider usage. Period: src/analytics/period.ts. */
import { resolvePeriod, PeriodQuery } from '../../analytics/period.js';
import { analyticsRollup } from '../../analytics/rollup.js';
import { summary, timeseries, toolUse, usage } from '../../analytics/service.js';
import { route, type ApiModule } from '../define.js';

export const analyticsModule: ApiModule = {
  name: 'analytics',
  start(app) {
    const stop = analyticsRollup(app).start();
    app.onClose(stop);
  },
  routes: [
    route({ op: 'GET /api/v1/analytics/summary', query: PeriodQuery,
      handler: ({ app, workspaceId, query }) => summary(app, workspaceId, resolvePeriod(query, app.clock.now())) }),
    route({ op: 'GET /api/v1/analytics/timeseries', query: PeriodQuery,
      handler: ({ app, workspaceId, query }) => timeseries(app, workspaceId, resolvePeriod(query, app.clock.now())) }),
    route({ op: 'GET /api/v1/analytics/tools', query: PeriodQuery,
      handler: ({ app, workspaceId, query }) => toolUse(app, workspaceId, resolvePeriod(query, app.clock.now())) }),
    route({ op: 'GET /api/v1/analytics/usage', query: PeriodQuery,
      handler: ({ app, workspaceId, query }) => usage(app, workspaceId, resolvePeriod(query, app.clock.now())) }),
  ],
};
