import type { ApiModule } from '../define.js';
import { botsModule } from './bots.js';
import { facesModule } from './faces.js';
import { knowledgeModule } from './knowledge.js';
import { providersModule } from './providers.js';
import { authModule } from './auth.js';
import { teamModule } from './team.js';
import { toolsModule } from './tools.js';
import { workspaceModule } from './workspace.js';
import { webhooksModule } from './webhooks.js';
import { conversationsModule } from './conversations.js';
import { widgetModule } from './widget.js';
import { liveModule } from './live.js';
import { agentActionsModule } from './agent-actions.js';
import { leadsModule } from './leads.js';
import { analyticsModule } from './analytics.js';
import { visitorsModule } from './visitors.js';

/**
 * The API's areas. Each module file owns its routes (and sockets); this list is the only place they meet.
 * Add a module here when its area lands.
 */
export async function apiModules(): Promise<ApiModule[]> {
  return [authModule, teamModule, workspaceModule, toolsModule, providersModule, botsModule, facesModule, knowledgeModule, webhooksModule, conversationsModule, widgetModule,
    liveModule, agentActionsModule, leadsModule, analyticsModule, visitorsModule];
}
