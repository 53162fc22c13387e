import type { ApiModule } from '../define.js';
import type { WidgetServices } from '../../chat/widget-socket.js';
import type { HttpToolService } from '../../tools/http-tools.js';
import type { McpServerService } from '../../tools/mcp-servers.js';
import type { SecretService } from '../../tools/secrets.js';
import type { AnalyticsRollup } from '../../analytics/rollup.js';
import type { KnowledgeService } from '../../knowledge/service.js';
import type { WebhookService } from '../../events/webhooks/index.js';
import type { LiveServices } from './live.js';
import type { AuthServices } from './auth.js';
import type { WorkspaceDeletion } from '../../auth/workspace-cleanup.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { hostedAgentPort } from '../../voice/hosted-agent.js';
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

/** The services the route modules are handed when mounted (the composition root's `Services` has them all). */
export interface ApiServices extends WidgetServices, LiveServices, AuthServices {
  httpTools: HttpToolService;
  mcpServers: McpServerService;
  secrets: SecretService;
  analytics: AnalyticsRollup;
  knowledge: KnowledgeService;
  webhooks: WebhookService;
  workspaceDeletion: WorkspaceDeletion;
  /** A hosted voice agent is given the tools its bot's conversations have. */
  tools: ToolRegistry;
}

/**
 * The API's areas. Each module file owns its routes (and sockets); this list is the only place they meet.
 * Add a module here when its area lands; a module that calls a service takes it as a parameter.
 */
export async function apiModules(services: ApiServices): Promise<ApiModule[]> {
  return [authModule(services), teamModule(services.accessEndings), workspaceModule(services.workspaceDeletion), toolsModule(services), providersModule, botsModule(hostedAgentPort(services.tools)), facesModule, knowledgeModule(services.knowledge), webhooksModule(services.webhooks), conversationsModule(services.conversations), widgetModule(services),
    liveModule(services), agentActionsModule(services), leadsModule, analyticsModule(services), visitorsModule(services.conversations)];
}
