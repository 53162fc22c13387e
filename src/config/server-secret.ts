import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../kernel/log.js';
import type { Config } from './index.js';
import { PRIVATE_DIR_MODE } from './data-dir-modes.js';

/**
 * The server's secret: SECRET_KEY, else `secret.key` in DATA_DIR, made on the first start (with a warning). It
 * derives the key that encrypts stored provider keys and the installation's Redis key prefix. Read by the server
 * and, for a WORKERS group, written once by the supervisor before its workers start.
 */
export function serverSecret(config: Config, log: Logger): string {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  log.warn({ file }, 'generated a server secret key; set SECRET_KEY in production (and keep it: it decrypts stored provider keys)');
  return secret;
}
