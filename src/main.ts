import { ConfigError, loadConfig } from './config/index.js';
import { startServer } from './server.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) { process.stderr.write(err.message + '\n'); process.exit(1); }
  throw err;
}

const server = await startServer(config);
const stop = async (signal: string) => {
  server.app.log.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await server.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));
