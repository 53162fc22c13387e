import type { AppContext } from './app/context.js';
import { buildApi } from './api/build.js';
import { buildOpenApi } from './api/openapi.js';
import { apiModules } from './api/routes/index.js';
import { systemModule } from './api/routes/system.js';
import { systemClock, type Clock } from './kernel/clock.js';
import type { Config } from './config/index.js';
import { serverSecret } from './config/server-secret.js';
import { joinDataDirLock, lockDataDir } from './config/data-dir-lock.js';
import { looseModes, looseModesAdvice, restrictNewFiles } from './config/data-dir-modes.js';
import { EventBus } from './app/event-bus.js';
import { createHttpServer, type HttpServer } from './http/server.js';
import { createLogger, type Logger } from './kernel/log.js';
import { deriveKey } from './security/secret-box.js';
import { openStores } from './store/open.js';
import { joinGroup } from './group/join.js';
import { groupClock } from './scale/clock.js';
import { installationPrefix, ScaleNode } from './scale/node.js';
import { closePool } from '../workers/pool.js';
import { instrumentStore } from './metrics/store.js';
import { mountOperations } from './ops/routes.js';
import { composeServices, type Composition, type Services } from './compose.js';
import { openRecords } from './records-root.js';
import { botListsChanged } from './bots/list-cache.js';

export interface RunningServer {
  app: AppContext;
  /** Every service of the app, created once at start-up by the composition root (src/compose.ts). */
  services: Services;
  http: HttpServer;
  port: number;
  url: string;
  /** The metrics listener's port (METRICS_PORT), null without one. */
  metricsPort: number | null;
  /** Graceful stop: stop accepting, close sockets, run close hooks (actors drain), close stores. */
  close(): Promise<void>;
}

export async function startServer(config: Config, opts: { clock?: Clock; logger?: Logger } = {}): Promise<RunningServer> {
  const log = opts.logger ?? createLogger(config.logLevel, undefined, { worker: config.group?.index, format: config.logFormat });
  let clock = opts.clock ?? systemClock;
  // The one place that decides a process owns its DATA_DIR (the exclusive port is in src/http/server.ts);
  // a worker of a scale-out group shares its supervisor's (src/scale/supervisor.ts).
  restrictNewFiles();
  const lock = config.group ? joinDataDirLock(config.dataDir, config.group.secret) : lockDataDir(config.dataDir);
  if (!config.group) {
    const loose = looseModes(config.dataDir);
    if (loose.length) log.warn({ dataDir: config.dataDir, count: loose.length }, looseModesAdvice(config.dataDir, loose));
  }
  let scale: ScaleNode | null = null;
  const closers: Array<() => Promise<void> | void> = [];
  let stores: Awaited<ReturnType<typeof openStores>> | null = null;
  let http: HttpServer | null = null;
  let composition: Composition | null = null;
  /** Stops what has started so far, last started first; also undoes a start that failed half-way. */
  const shutdown = async () => {
    if (http) await http.close();
    // The services stop first (conversations drain while the group, the modules' listeners and the stores are there).
    await composition?.stop();
    for (const fn of closers.reverse()) {
      try { await fn(); } catch (err) { log.error({ err }, 'shutdown step failed'); }
    }
    await closePool();
    if (stores) { await stores.vectors.close(); await stores.store.close(); }
    await scale?.close();
    lock.release();
  };
  try {
    if (config.redisUrl) scale = await ScaleNode.connect(config.redisUrl, log, config.leaseMs, config.redisPrefix ?? installationPrefix(serverSecret(config, log)));
    // Scale-out: every process goes by the coordination server's time (src/scale/clock.ts); a test's clock stays as given.
    if (scale && !opts.clock) { const shared = await groupClock(scale, clock, log); clock = shared; closers.push(() => shared.stop()); }
    stores = await openStores(config, log);
    const { store, vectors } = stores;
    const instrumented = instrumentStore(store);
    const app: AppContext = {
      config, log, clock, store: instrumented, vectors,
      records: openRecords(instrumented, { botsChanged: (workspaceId) => botListsChanged(app, workspaceId) }),
      events: new EventBus(store, clock, log),
      secretKey: deriveKey(serverSecret(config, log)),
      scale,
      onClose: (fn) => { closers.push(fn); },
    };
    composition = composeServices(app);
    const { services } = composition;
    if (scale) joinGroup(app, scale, services);
    let openApi: Record<string, unknown> | null = null;
    const modules = [systemModule(() => openApi!), ...(await apiModules(services))];
    const api = buildApi(app, modules);
    openApi = buildOpenApi(api, config.publicUrl);
    const metricsPort = await mountOperations(app, services, api.router, config);
    for (const m of modules) await m.start?.(app);
    const server = createHttpServer({
      logger: log, router: api.router, bodyLimitBytes: config.bodyLimitBytes, trustProxy: config.trustProxy,
      sockets: modules.flatMap((m) => m.sockets?.(app) ?? []),
    });
    http = server;
    const port = await server.listen(config.host, config.port, !!config.group);
    if (config.group) {
      const own = config.workerPortBase ? await server.listen(config.host, config.workerPortBase + config.group.index) : null;
      log.info({ worker: config.group.index, pid: process.pid, node: scale?.id, ownPort: own }, 'worker listening');
    }
    // PORT=0 without PUBLIC_URL: the addresses the server hands out (start-up links, embed snippets, invitation and
    // sign-in links, the OpenAPI server) name the port the system chose, not localhost:0.
    if (config.port === 0 && !config.group && config.publicUrl === 'http://localhost:0') {
      Object.assign(app, { config: Object.freeze({ ...config, publicUrl: `http://localhost:${port}` }) });
      openApi = buildOpenApi(api, app.config.publicUrl);
    }
    services.readiness.markStarted();
    log.info({ port, url: app.config.publicUrl, metricsPort }, 'server listening');
    let closing: Promise<void> | null = null;
    return {
      app, services, http: server, port, url: `http://127.0.0.1:${port}`, metricsPort,
      close() {
        services.readiness.beginDrain();
        closing ??= shutdown().then(() => log.info('server stopped'));
        return closing;
      },
    };
  } catch (err) {
    await shutdown().catch((e) => log.error({ err: e }, 'could not undo a failed start'));
    throw err;
  }
}
