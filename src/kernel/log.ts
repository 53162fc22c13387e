import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyStream } from './log-pretty.js';

export type { Logger };

/**
 * The root logger. Level comes from config (LOG_LEVEL); tests pass 'silent'. Lines go to stdout (or the given
 * destination, for benchmarks) through an asynchronous writer: under load the lines of one turn of the event
 * loop share one write instead of a system call each, and pino writes what is left synchronously when the
 * process exits (a crash included; only kill -9 can lose the last lines). `format: 'pretty'` (LOG_FORMAT) writes
 * readable lines for a person at a terminal instead of one JSON object a line (src/kernel/log-pretty.ts).
 */
export function createLogger(level: string, destination?: DestinationStream, o: { worker?: number; format?: 'json' | 'pretty' } = {}): Logger {
  const stdout = () => {
    const out = pino.destination({ sync: false });
    return o.format === 'pretty' ? prettyStream(out, process.stdout.isTTY === true) : out;
  };
  return pino({
    level,
    // In a WORKERS group every line names its worker (the supervisor's own lines carry none).
    base: o.worker === undefined ? undefined : { worker: o.worker },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.password', '*.secret'], censor: '[redacted]' },
  }, destination ?? (level === 'silent' ? undefined : stdout()));
}

/**
 * The request log (a line per answer, at the root logger's level, to its destination): its fields are fixed
 * (request id, method, path, status, duration) and hold nothing to redact, so it skips the redaction pass the
 * root logger makes over every line.
 */
export function requestLogger(root: Logger): Logger {
  const stream = (root as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  const bound = root.bindings();
  return pino({ level: root.level, base: Object.keys(bound).length ? bound : undefined }, stream);
}
