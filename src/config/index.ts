import { z } from 'zod';
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const SESSION_LIMIT = { error: 'must be a whole number from 0 (no limit) to 10000, e.g. 4' };
const sessionLimit = z.coerce.number(SESSION_LIMIT).int(SESSION_LIMIT).min(0, SESSION_LIMIT).max(10_000, SESSION_LIMIT);

/** Every environment variable the server reads. Nothing else in the code reads process.env. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  MONGODB_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://').optional(),
  MONGODB_DB: z.string().min(1).default('servicechat'),
  QDRANT_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  QDRANT_API_KEY: z.string().optional(),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  ALLOW_PRIVATE_NETWORK: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json (one JSON object a line) or pretty (for people at a terminal)' }).optional(),
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://chat.example.com' }).optional(),
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters (for example: openssl rand -hex 32)').optional(),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(1024 * 1024),
  UPLOAD_LIMIT_BYTES: z.coerce.number().int().min(1024).max(200 * 1024 * 1024).default(30 * 1024 * 1024),
  // How many proxies in front of the server append to X-Forwarded-For: true is one, false (or 0) none.
  TRUST_PROXY: z.string().trim().toLowerCase().default('false').transform((v, ctx) => {
    if (['true', 'yes'].includes(v)) return 1;
    if (['false', 'no', ''].includes(v)) return 0;
    if (/^\d{1,2}$/.test(v) && Number(v) <= 10) return Number(v);
    ctx.addIssue({ code: 'custom', message: 'must be true, false, or the number of proxies in front of the server (0 to 10), e.g. 1 behind one proxy' });
    return z.NEVER;
  }),
  // REST API rate limits (docs/access.md, "API rate limits"): requests a minute; 0 turns one off.
  API_RATE_PER_TOKEN: z.coerce.number().int().min(0).max(1_000_000).optional(),
  API_RATE_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  // Tools (docs/tools.md): stdio MCP servers start programs on this host; off unless their commands are listed here.
  MCP_STDIO_COMMANDS: z.string()
    .transform((v) => v.split(',').map((c) => c.trim()).filter(Boolean))
    .refine((list) => list.every((c) => c.startsWith('/')), 'must be a comma-separated list of absolute program paths, e.g. /usr/local/bin/mcp-files,/opt/mcp/bin/server')
    .optional(),
  // Voice (docs/voice.md, Limits): voice sessions at once per visitor and per address, across all bots; 0 is no limit.
  VOICE_SESSIONS_PER_VISITOR: sessionLimit.default(2),
  VOICE_SESSIONS_PER_ADDRESS: sessionLimit.default(4),
  // Operations (docs/operations.md): metrics are off unless one of these two is set.
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (for example: openssl rand -hex 24)').optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(0),
  // Knowledge (docs/knowledge.md): the embedded embedding model when no connection is chosen; off by default under NODE_ENV=test.
  EMBEDDED_EMBEDDINGS: bool.optional(),
  // Scale-out (docs/operations.md, "Scale-out"): unset, the server is one process and needs no Redis.
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss:// (Redis or Valkey)').optional(),
  WORKERS: z.string().regex(/^(auto|[1-9][0-9]{0,2})$/, 'must be a number of processes (1-999) or auto (one per core)').optional(),
  WORKER_PORTS: z.coerce.number().int().min(1).max(65535).optional(),
  LEASE_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.:{}-]{1,64}$/, 'must be 1-64 letters, digits or _ . : { } - (for example: acme:)').optional(),
  // Set by the supervisor for its workers only (src/scale/supervisor.ts), never by hand.
  SERVER_GROUP: z.string().regex(/^[a-f0-9]{32}$/).optional(),
  WORKER_INDEX: z.coerce.number().int().min(0).max(998).optional(),
});

export type Config = Readonly<{
  port: number;
  host: string;
  dataDir: string;
  mongodbUrl: string | null;
  mongodbDb: string;
  qdrantUrl: string | null;
  qdrantApiKey: string | null;
  env: 'development' | 'production' | 'test';
  production: boolean;
  allowPrivateNetwork: boolean;
  logLevel: string;
  /** pretty: a readable line per event (the default when stdout is a terminal); json: one JSON object a line (otherwise). */
  logFormat: 'json' | 'pretty';
  publicUrl: string;
  /** Server secret: encrypts provider keys and secrets at rest. Null means generate one under DATA_DIR. */
  secretKey: string | null;
  bodyLimitBytes: number;
  uploadLimitBytes: number;
  /** Proxies trusted to append to X-Forwarded-For (0: none; the client address is the socket's peer). */
  trustProxy: number;
  /** REST API requests a minute per API token and per client address (0: no limit). */
  apiRatePerToken: number;
  apiRatePerAddress: number;
  /** Programs a stdio MCP server may start (MCP_STDIO_COMMANDS, absolute paths); empty: stdio MCP servers are off. */
  mcpStdioCommands: readonly string[];
  /** Voice sessions one visitor may have at once, across all bots of the server (group); 0: no limit. */
  voiceSessionsPerVisitor: number;
  /** Voice sessions one client address (an IPv6 /64) may have at once, across all bots; 0: no limit. */
  voiceSessionsPerAddress: number;
  /** GET /metrics on the main port with Authorization: Bearer <this>; null: not there. */
  metricsToken: string | null;
  /** A separate listener for /metrics and /readyz (on metricsHost); null: none. */
  metricsPort: number | null;
  metricsHost: string;
  /** On SIGTERM: how long /readyz answers 503 before the server stops taking requests (load balancers notice). */
  shutdownDelayMs: number;
  /** Knowledge search by meaning with the embedded model when the workspace chose no embedding connection. */
  embeddedEmbeddings: boolean;
  /** Scale-out coordination (Redis or Valkey); null: one process, nothing shared. */
  redisUrl: string | null;
  /** Processes to start on this host sharing PORT (WORKERS); 1 without it. */
  workers: number;
  /** With WORKERS: worker i also listens alone on WORKER_PORTS + i (a proxy that balances itself, health checks). */
  workerPortBase: number | null;
  /** How long a process's ownership of a conversation lasts without renewal (a dead owner's are taken over after it). */
  leaseMs: number;
  /** What every Redis key and channel of this installation begins with (REDIS_PREFIX); null: derived from the server secret. */
  redisPrefix: string | null;
  /** In a worker started by the supervisor: the group's secret (shares DATA_DIR and PORT) and the worker's number. */
  group: { secret: string; index: number } | null;
  version: string;
}>;

/** A start-up problem a person fixes in the environment (a bad variable, a port or DATA_DIR in use): shown as a message, no stack. */
export class ConfigError extends Error {}

/** REST API requests a minute allowed by default (docs/access.md, "API rate limits"). */
export const API_RATE_DEFAULTS = Object.freeze({ perToken: 600, perAddress: 1200 });

export const SERVER_VERSION = '0.1.0';

/** Parses the environment once at start-up; a bad variable stops the server with a message naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const input = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in EnvSchema.shape && v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const port = e.PORT;
  const workers = e.WORKERS === 'auto' ? availableParallelism() : Number(e.WORKERS ?? 1);
  if ((workers > 1 || e.WORKERS === 'auto') && !e.REDIS_URL) {
    throw new ConfigError(`Invalid environment configuration:\n  WORKERS: ${e.WORKERS} processes need REDIS_URL (a Redis or Valkey server, e.g. redis://127.0.0.1:6379) to act as one server; set REDIS_URL, or remove WORKERS to run one process.`);
  }
  return Object.freeze({
    port,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    mongodbUrl: e.MONGODB_URL ?? null,
    mongodbDb: e.MONGODB_DB,
    qdrantUrl: e.QDRANT_URL ?? null,
    qdrantApiKey: e.QDRANT_API_KEY ?? null,
    env: e.NODE_ENV,
    production: e.NODE_ENV === 'production',
    allowPrivateNetwork: e.ALLOW_PRIVATE_NETWORK,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    secretKey: e.SECRET_KEY ?? null,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    uploadLimitBytes: e.UPLOAD_LIMIT_BYTES,
    trustProxy: e.TRUST_PROXY,
    // Tests send thousands of requests from one address in one (fake) minute: they turn the limits on where they test them.
    apiRatePerToken: e.API_RATE_PER_TOKEN ?? API_RATE_DEFAULTS.perToken,
    apiRatePerAddress: e.API_RATE_PER_ADDRESS ?? API_RATE_DEFAULTS.perAddress,
    mcpStdioCommands: Object.freeze(e.MCP_STDIO_COMMANDS ?? []),
    voiceSessionsPerVisitor: e.VOICE_SESSIONS_PER_VISITOR,
    voiceSessionsPerAddress: e.VOICE_SESSIONS_PER_ADDRESS,
    metricsToken: e.METRICS_TOKEN ?? null,
    metricsPort: e.METRICS_PORT ?? null,
    metricsHost: e.METRICS_HOST,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    // Tests ingest documents everywhere: they load the ~200 MB model only where they ask for it.
    embeddedEmbeddings: e.EMBEDDED_EMBEDDINGS ?? e.NODE_ENV !== 'test',
    redisUrl: e.REDIS_URL ?? null,
    workers,
    workerPortBase: e.WORKER_PORTS ?? null,
    leaseMs: e.LEASE_MS,
    redisPrefix: e.REDIS_PREFIX ?? null,
    group: e.SERVER_GROUP ? { secret: e.SERVER_GROUP, index: e.WORKER_INDEX ?? 0 } : null,
    version: SERVER_VERSION,
    ...overrides,
  });
}
