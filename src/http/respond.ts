import { ApiError, fromZodIssues, internal } from '../kernel/errors.js';
import type { Logger } from '../kernel/log.js';
import type { HttpResponse } from './types.js';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found',
  304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Entity', 426: 'Upgrade Required', 429: 'Too Many Requests', 500: 'Internal Server Error',
  501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 507: 'Insufficient Storage',
};

export const statusLine = (status: number) => `${status} ${STATUS_TEXT[status] ?? 'Status'}`;

/** The one place errors become HTTP answers: ApiError as is, zod errors as `invalid`, anything else `internal`. */
export function errorToResponse(err: unknown, log: Logger): HttpResponse {
  let e: ApiError;
  if (err instanceof ApiError) e = err;
  else if (isZodError(err)) e = fromZodIssues(err.issues);
  else {
    log.error({ err }, 'unhandled error in request');
    e = internal();
  }
  return { status: e.status, headers: e.headers, body: e.toBody() };
}

function isZodError(err: unknown): err is { issues: { path: PropertyKey[]; message: string }[] } {
  return !!err && typeof err === 'object' && (err as { name?: string }).name === 'ZodError' && Array.isArray((err as { issues?: unknown }).issues);
}

/** Serialises a response body: Buffers and strings as they are, everything else as JSON. */
export function encodeBody(res: HttpResponse): { bytes: Buffer | string; contentType: string | null } {
  const b = res.body;
  if (b === undefined || b === null) return { bytes: '', contentType: null };
  if (Buffer.isBuffer(b)) return { bytes: b, contentType: 'application/octet-stream' };
  if (typeof b === 'string') return { bytes: b, contentType: 'text/plain; charset=utf-8' };
  return { bytes: JSON.stringify(b), contentType: 'application/json; charset=utf-8' };
}
