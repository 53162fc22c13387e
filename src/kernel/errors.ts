/** The one error family of the service. Codes are the spec's error codes (service-api.md, Errors). */
export type ErrorCode =
  | 'bad_request'
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'csrf'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'internal'
  | 'unavailable'
  | 'not_implemented'
  | 'session_limit'
  | 'payload_too_large'
  | 'insufficient_storage';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    /** Extra response headers, e.g. Retry-After for rate_limited. */
    readonly headers: Record<string, string> = {},
    /** Extra machine-readable detail placed next to code and message (e.g. a list of publish problems). */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { error: { code: string; message: string; details?: unknown } } {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } };
  }
}

export const badRequest = (message: string) => new ApiError('bad_request', 400, message);
export const invalid = (message: string, details?: unknown) => new ApiError('invalid', 422, message, {}, details);
export const unauthorized = (message = 'sign in or send a valid API token') => new ApiError('unauthorized', 401, message);
export const forbidden = (message = 'not allowed') => new ApiError('forbidden', 403, message);
export const csrfError = (message = "missing or wrong X-CSRF-Token header: a signed-in request that changes something sends the session's csrfToken (from the sign-in answer or GET /api/v1/me) in it") => new ApiError('csrf', 403, message);
export const notFound = (what = 'record') => new ApiError('not_found', 404, `${what} not found`);
export const conflict = (message: string) => new ApiError('conflict', 409, message);
export const rateLimited = (retryAfterSec: number, message = 'too many requests') =>
  new ApiError('rate_limited', 429, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSec))) });
export const notImplemented = (what: string) => new ApiError('not_implemented', 501, `${what} is not built yet`);
export const payloadTooLarge = (limitBytes: number) =>
  new ApiError('payload_too_large', 413, `request body is larger than ${limitBytes} bytes`);
/** 503: a part the request needs is away for a moment (scale-out: Redis); Retry-After says when to try again. */
export const unavailable = (message: string, retryAfterSec = 5) =>
  new ApiError('unavailable', 503, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSec))) });
export const internal = () => new ApiError('internal', 500, 'internal server error');

/** Turns a zod error into one `invalid` ApiError whose message names the field path, then the problem. */
export function fromZodIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix = ''): ApiError {
  const parts = issues.slice(0, 10).map((i) => {
    const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    return path ? `${path}: ${i.message}` : i.message;
  });
  return invalid(parts.join('; '), issues.map((i) => ({ path: [prefix, ...i.path.map(String)].filter(Boolean).join('.'), message: i.message })));
}
