import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** The root logger. Level comes from config (LOG_LEVEL); tests pass 'silent'. Lines go to stdout unless a destination is given (benchmarks). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.password', '*.secret'], censor: '[redacted]' },
  }, destination);
}
