/**
 * The composition root: every service of the server is created here, once, at start-up, in dependency order, each
 * handed what it uses. What a service is handed is in its constructor; the order below is the order they stop in,
 * reversed (Lifecycle). The tool sources are registered here too, so a bot has its built-in tools from the start.
 * docs/development.md ("Composition") says how to add a service.
 */
import type { AppContext } from './app/context.js';
import { Lifecycle } from './app/lifecycle.js';
import { Readiness } from './app/readiness.js';
import { createCredentialCache, credentialCache, type CredentialCache } from './auth/credential-cache.js';
import { BotLists, botLists, createBotLists } from './bots/list-cache.js';
import { ChatBotCache, createChatBotCache } from './bots/chat-bot-cache.js';
import { loadBotForChat } from './bots/bot-source.js';
import { ToolRegistry } from './tools/registry.js';
import { SecretService } from './tools/secrets.js';
import { HttpToolService } from './tools/http-tools.js';
import { httpToolSource } from './tools/http-source.js';
import { McpServerService } from './tools/mcp-servers.js';
import { mcpToolSource } from './tools/mcp-source.js';
import { pageToolSource } from './tools/page-tools.js';
import { KnowledgeService, knowledge } from './knowledge/service.js';
import { registerKnowledgeHooks } from './knowledge/agent.js';
import { createWebhooks, stopWebhooks, type WebhookService } from './events/webhooks/index.js';
import { AnalyticsRollup } from './analytics/rollup.js';
import { ChatHub } from './conversation/hub.js';
import { VisitorRequests } from './conversation/visitor-requests.js';
import { builtinToolSource } from './conversation/builtins.js';
import { leadToolSource } from './conversation/lead-capture.js';
import { CameraLinks, cameraToolSource } from './voice/camera-tool.js';
import { LiveHub } from './team/live-hub.js';
import { createWorkspaceActors, type WorkspaceActors } from './team/workspace.js';
import { handoffTimedOut, handoffToolSource } from './team/handoff.js';
import type { TeamServices } from './team/services.js';
import { ConversationService } from '../actors/conversation/index.js';
import { VoiceService } from '../actors/voice/index.js';
import { OfflineWatch } from './chat/offline-watch.js';
import { PublishedBotWatch } from './chat/published-watch.js';
import { createProviderClient, providerClient } from './providers/http-client.js';
import { SileroVad } from './providers/cascade/silero.js';
import { createVoiceSeats } from './scale/voice-seats.js';
import { createSharedLimits, type SharedLimits } from './scale/limits.js';
import { UploadLimits } from './chat/uploads.js';
import { AccountThrottles } from './auth/accounts.js';
import { AccessEndings } from './auth/access-ended.js';
import { WorkspaceDeletion } from './auth/workspace-cleanup.js';
import type { GuardedClient } from './security/guarded-client.js';
import { startRetentionJob, stopRetentionJob, type RetentionJob } from './retention/job.js';
import { startCameraFramesJob, type CameraFramesJob } from './retention/camera-frames.js';

/** Every service of one app, as the root made them. */
export interface Services {
  readonly readiness: Readiness;
  /** The one guarded client of all provider traffic (src/providers/http-client.ts). */
  readonly providerClient: GuardedClient;
  readonly credentials: CredentialCache;
  readonly botLists: BotLists;
  /** The published bots as widgets need them, dropped with the bots lists. */
  readonly chatBots: ChatBotCache;
  readonly tools: ToolRegistry;
  readonly secrets: SecretService;
  readonly httpTools: HttpToolService;
  readonly mcpServers: McpServerService;
  readonly knowledge: KnowledgeService;
  readonly webhooks: WebhookService;
  readonly analytics: AnalyticsRollup;
  readonly chatHub: ChatHub;
  readonly visitorRequests: VisitorRequests;
  readonly cameraLinks: CameraLinks;
  readonly liveHub: LiveHub;
  readonly workspaceActors: WorkspaceActors;
  readonly conversations: ConversationService;
  readonly voice: VoiceService;
  readonly offlineWatch: OfflineWatch;
  readonly publishedBotWatch: PublishedBotWatch;
  /** Rate limits counted across the scale-out group (null: one process). */
  readonly sharedLimits: SharedLimits | null;
  readonly uploadLimits: UploadLimits;
  readonly accountThrottles: AccountThrottles;
  /** Tells the live sockets and the credential cache that sessions ended or rights changed. */
  readonly accessEndings: AccessEndings;
  /** Deletes a workspace with every area's cleanup step. */
  readonly workspaceDeletion: WorkspaceDeletion;
  /** The hourly conversation retention sweep (its schedule and the sweep under way). */
  readonly retention: RetentionJob;
  /** The quarter-hourly sweep of camera frames whose time is up. */
  readonly cameraFrames: CameraFramesJob;
}

export interface Composition {
  readonly services: Services;
  /** Stops the services, last created first (the server calls it once HTTP has stopped). */
  stop(): Promise<void>;
  /** The services' names in the order they were created. */
  readonly order: readonly string[];
}

/** Creates every service of `app` (call once, at start-up, before anything serves). */
export function composeServices(app: AppContext): Composition {
  const life = new Lifecycle(app.log);
  const add = life.add.bind(life);

  // Scale-out: rate limits counted across the group, each at its home process (none for one process).
  const shared = add('shared limits', createSharedLimits(app));
  const uploads = add('upload limits', new UploadLimits(app.clock, shared));
  const throttles = add('sign-in throttles', new AccountThrottles(app));
  const ready = add('readiness', new Readiness(app));
  const providers = add('provider HTTP client', providerClient.provide(app, createProviderClient(app)), (c) => c.close());
  // The voice-activity model's thread (started by the first cascade voice session) is released after the sessions stop.
  add('voice activity model', SileroVad, (vad) => vad.shutdown());
  const endings = add('access endings', new AccessEndings(app));
  const credentials = add('credential cache', credentialCache.provide(app, createCredentialCache(app, endings)));
  const deletion = add('workspace deletion', new WorkspaceDeletion(app, endings, credentials));
  const lists = add('bot lists', botLists.provide(app, createBotLists(app, deletion)));
  const chatBots = add('chat bot cache', createChatBotCache(app, lists, (botId) => loadBotForChat(app, botId)));
  const tools = add('tool registry', new ToolRegistry());
  const secretService = add('secrets', new SecretService(app));
  const http = add('HTTP tools', new HttpToolService(app, secretService), (s) => s.close());
  const mcp = add('MCP servers', new McpServerService(app), (s) => s.close());
  const know = add('knowledge', knowledge.provide(app, new KnowledgeService(app, deletion)), (s) => s.close());
  const hooks = add('webhooks', createWebhooks(app), stopWebhooks);
  // Counting starts here, so no stored event of the start-up is missed; stopping writes what was gathered.
  const analytics = new AnalyticsRollup(app);
  const stopCounting = analytics.start();
  add('analytics rollup', analytics, () => stopCounting());
  const hub = add('chat hub', new ChatHub());
  const requests = add('visitor requests', new VisitorRequests(app, hub));
  const camera = add('camera links', new CameraLinks(app));
  const live = add('live hub', new LiveHub());
  // A handoff's wait ends in a workspace actor and reaches the conversation, made after the workspace actors (so it
  // stops before them): the timers read `team` once both exist (a wait is armed only after start-up).
  const workspaces = add('workspace actors', createWorkspaceActors(app, live, (_, w, c, h) => handoffTimedOut(app, team, w, c, h)), (r) => r.stopAll());
  const convs = add('conversations', new ConversationService(app, { hub, tools, requests, readiness: ready, bots: lists }, shared), (s) => s.stop());
  const team: TeamServices = { conversations: convs, workspaceActors: workspaces };
  // Scale-out: the voice sessions' seats counted across the group (none for one process); given back at shutdown.
  const seats = createVoiceSeats(app);
  if (seats) add('voice seats', seats, (s) => s.close());
  const voice = add('voice sessions', new VoiceService(app, convs, { tools, requests, seats }), (s) => s.close());
  const hours = add('offline watch', new OfflineWatch(app));
  const published = add('published bot watch', new PublishedBotWatch(app, hours));
  // The sweeps stop first at shutdown (a sweep under way finishes before the conversations stop).
  const retention = add('conversation retention', startRetentionJob(app, convs), stopRetentionJob);
  // Camera frames have a shorter life of their own (vision.webcam.persistFrames), on the same kind of schedule.
  const cameraFrames = add('camera frames sweep', startCameraFramesJob(app), stopRetentionJob);

  // The agent loop's tools, in the order a reply lists them (the first of two with one name wins).
  tools.addSource(httpToolSource(http));
  tools.addSource(mcpToolSource(mcp));
  tools.addSource(pageToolSource(requests));
  registerKnowledgeHooks(tools);
  tools.addSource(cameraToolSource(camera));
  tools.addSource(handoffToolSource(team));
  tools.addSource(leadToolSource);
  tools.addSource(builtinToolSource);

  return {
    services: {
      readiness: ready, providerClient: providers, credentials, botLists: lists, chatBots, tools, secrets: secretService, httpTools: http, mcpServers: mcp,
      knowledge: know, webhooks: hooks, analytics, chatHub: hub, visitorRequests: requests, cameraLinks: camera,
      liveHub: live, workspaceActors: workspaces, conversations: convs, voice, offlineWatch: hours, publishedBotWatch: published, sharedLimits: shared, uploadLimits: uploads, accountThrottles: throttles, accessEndings: endings, workspaceDeletion: deletion, retention, cameraFrames,
    },
    stop: () => life.stop(),
    order: life.names,
  };
}
