/**
 * Log lines for a person at a terminal (LOG_FORMAT=pretty, the default when stdout is a terminal): pino's JSON
 * line becomes `12:04:05.120 INFO  admin panel: http://… url=http://…`, an error's stack on the lines below.
 * A pino destination stream: pino still makes the JSON (redaction included), this only rewrites it on the way out.
 */
import type { DestinationStream } from 'pino';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has, shown in the line's head instead of as key=value. */
const HEAD = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'worker', 'v']);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const clock = (ms: number) => { const d = new Date(ms); return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`; };

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** One JSON log line as a person reads it (no trailing newline). A line that is not JSON is kept as it is. */
export function prettyLine(json: string, colour = false): string {
  let o: Record<string, unknown>;
  try { o = JSON.parse(json); } catch { return json.replace(/\n$/, ''); }
  const level = typeof o.level === 'number' ? o.level : 30;
  const name = (LEVELS[level] ?? String(level)).padEnd(5);
  const head = [
    typeof o.time === 'number' ? clock(o.time) : '',
    colour ? `\u001b[${COLOURS[level] ?? '0'}m${name}\u001b[0m` : name,
    o.worker === undefined ? '' : `[worker ${String(o.worker)}]`,
    typeof o.msg === 'string' ? o.msg : '',
  ].filter(Boolean).join(' ');
  const fields: string[] = [];
  let stack = '';
  for (const [k, v] of Object.entries(o)) {
    if (HEAD.has(k) || v === undefined) continue;
    if (v && typeof v === 'object' && typeof (v as { stack?: unknown }).stack === 'string') {
      const { stack: s, ...rest } = v as Record<string, unknown>;
      stack += `\n    ${String(s).split('\n').join('\n    ')}`;
      if (Object.keys(rest).some((r) => r !== 'message' && r !== 'type')) fields.push(`${k}=${value(rest)}`);
      continue;
    }
    fields.push(`${k}=${value(v)}`);
  }
  return `${head}${fields.length ? `  ${fields.join(' ')}` : ''}${stack}`;
}

/** A destination that writes each line to `out` in the readable form (coloured when `colour`). */
export function prettyStream(out: DestinationStream & { flushSync?: () => void }, colour: boolean): DestinationStream & { flushSync(): void } {
  return {
    write(line: string) {
      // pino writes one line per call; a chunk holding several is split so each reads on its own.
      const text = line.split('\n').filter(Boolean).map((l) => prettyLine(l, colour)).join('\n');
      out.write(`${text}\n`);
    },
    flushSync() { out.flushSync?.(); },
  };
}
