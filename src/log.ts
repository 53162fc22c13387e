import { pino, type Logger } from 'pino';

export type { Logger };

/** The root logger. Level comes from config (LOG_LEVEL); tests pass 'silent'. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.password', '*.secret'], censor: '[redacted]' },
  });
}
