import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { ConfigError, type Config } from '../config/index.js';
import { lockDataDir } from '../config/data-dir-lock.js';
import { createLogger } from '../kernel/log.js';
import { ScaleNode } from './node.js';

/** A worker that exits this soon after starting failed to start (a bad setting): the group stops instead of looping. */
const EARLY_EXIT_MS = 5000;
const RESTART_DELAY_MS = 500;

/** The port must be free: a group never joins a port another server (or group) already listens on. */
async function portFree(host: string, port: number): Promise<void> {
  const code = await new Promise<string | null>((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
  if (code === 'EADDRINUSE') throw new ConfigError(`port ${port} (${host}:${port}) is already in use, perhaps by another server started earlier. Stop that process, or set PORT to a free port.`);
  if (code) throw new ConfigError(`could not listen on ${host}:${port} (${code}): check that PORT and HOST are free and belong to this machine.`);
}

/**
 * WORKERS=N: this process starts N server processes that share PORT (SO_REUSEPORT: the kernel spreads
 * connections) and DATA_DIR (this process holds the folder's lock with a group secret only its workers know),
 * restarts a worker that dies, and stops them all on SIGTERM/SIGINT. It serves nothing itself.
 */
export async function superviseWorkers(config: Config, ensureSecret: () => void): Promise<void> {
  const log = createLogger(config.logLevel, undefined, { format: config.logFormat });
  await portFree(config.host, config.port);
  // Checked here once, so a missing Redis is one clear message instead of N failing workers.
  await (await ScaleNode.connect(config.redisUrl!, log, config.leaseMs)).close();
  const secret = randomBytes(16).toString('hex');
  const lock = lockDataDir(config.dataDir, new Date(), secret);
  ensureSecret(); // written once here, not raced by N first starts
  const workers: (ChildProcess | null)[] = new Array(config.workers).fill(null);
  let stopping = false;

  const start = (index: number) => {
    const started = Date.now();
    const child = fork(process.argv[1], process.argv.slice(2), {
      env: { ...process.env, SERVER_GROUP: secret, WORKER_INDEX: String(index) },
      execArgv: process.execArgv,
    });
    workers[index] = child;
    child.once('exit', (code, signal) => {
      workers[index] = null;
      if (stopping) return;
      if (code === 1 && Date.now() - started < EARLY_EXIT_MS) {
        log.fatal({ worker: index }, 'a worker could not start (its message is above); stopping the group');
        void stop(1);
        return;
      }
      // A worker stopped on purpose (SIGTERM to its pid: a restart) exits 0 after its drain: not an error.
      if (code === 0) log.info({ worker: index, pid: child.pid }, 'worker stopped; starting a new one');
      else log.error({ worker: index, pid: child.pid, code, signal }, 'worker died; starting a new one (its conversations move to the others when their leases lapse)');
      setTimeout(() => { if (!stopping) start(index); }, RESTART_DELAY_MS);
    });
  };

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const alive = workers.filter((w): w is ChildProcess => !!w);
    await Promise.all(alive.map((w) => new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
      w.kill('SIGTERM');
      setTimeout(() => { w.kill('SIGKILL'); }, 20_000).unref();
    })));
    lock.release();
    process.exit(exitCode);
  };
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));
  for (let i = 0; i < config.workers; i++) start(i);
  log.info({ workers: config.workers, port: config.port, pid: process.pid }, 'scale-out group started');
}
