import { ConfigError, loadConfig } from './config/index.js';
import { currentRuntime, runtimeProblem, runtimeWarning } from './config/runtime.js';
import { PRIVATE_NETWORK_ON } from './security/private-network-note.js';

/** Start-up problems a person fixes (the runtime, the environment, a port or data folder in use): a message, no stack. */
function fail(message: string): never {
  process.stderr.write(message + '\n');
  process.exit(1);
}

const runtime = currentRuntime();
const problem = runtimeProblem(runtime);
if (problem) fail(problem);
const warning = runtimeWarning(runtime);
if (warning) process.stderr.write(`Warning: ${warning}\n`);

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}

/**
 * A worker leaves with its supervisor (even one killed with -9): no orphan keeps serving the shared folder. Watched
 * from here, before the server starts: the channel's end is told once, and a worker still starting (loading,
 * opening the store, joining the group) would otherwise miss it and run on alone. Once running it stops gracefully.
 */
let supervisorGone: () => void = () => {
  process.stderr.write('the scale-out group\'s supervisor is gone while this worker was starting: it stops\n');
  process.exit(1);
};
if (config.group) {
  process.once('disconnect', () => supervisorGone());
  if (!process.connected) supervisorGone();
}

if (config.workers > 1 && !config.group) {
  // WORKERS: this process only starts and watches the group's workers (src/scale/supervisor.ts); it loads none of
  // the server's modules.
  const { superviseWorkers } = await import('./scale/supervisor.js');
  const { serverSecret } = await import('./config/server-secret.js');
  const { createLogger } = await import('./kernel/log.js');
  const cfg = config;
  await superviseWorkers(cfg, () => { serverSecret(cfg, createLogger(cfg.logLevel, undefined, { format: cfg.logFormat })); }).catch((err) => {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  });
} else {
// Imported only now: on a runtime it cannot load on, uWebSockets.js's loader names the wrong cause.
const { startServer } = await import('./server.js');
let server;
try {
  server = await startServer(config);
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}
const running = server;
// The one address a new user needs: the panel (setup happens there on the first run).
const { publicUrl } = running.app.config;
running.app.log.info({ url: `${publicUrl}/admin/` }, `admin panel: ${publicUrl}/admin/`);
// Said once at start (by the first worker of a group): an opened door should not go unnoticed.
if (config.allowPrivateNetwork && !config.group?.index) running.app.log.warn(PRIVATE_NETWORK_ON);
/**
 * Graceful stop, made visible: /readyz answers 503 at once, requests are still served for SHUTDOWN_DELAY_MS (so
 * load balancers move new visitors away), then sockets close, actors drain and stores close, all within 15 s more.
 */
const stop = async (signal: string) => {
  running.app.log.info({ signal, delayMs: config.shutdownDelayMs }, 'shutting down');
  running.services.readiness.beginDrain();
  const force = setTimeout(() => { running.app.log.error('shutdown took too long; exiting'); process.exit(1); }, config.shutdownDelayMs + 15_000);
  force.unref();
  if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
  await running.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));
supervisorGone = () => void stop('supervisor gone');
}
