import { ApiError } from '../kernel/errors.js';
import { findOutboundError } from '../security/outbound-error.js';

/**
 * Turns whatever a provider SDK or fetch threw into one ApiError with a message a workspace admin can act on.
 * Never includes the key. `details` carries { providerStatus, retryable } for callers that retry or back off.
 */
export function providerError(
  err: unknown,
  where: { label: string; baseUrl: string; verifying?: boolean; /** Added when the base URL answers 404 while verifying. */ baseUrlHint?: string },
): ApiError {
  if (err instanceof ApiError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  // An ApiError thrown inside a fetch wrapper comes back wrapped by the SDK.
  if (cause instanceof ApiError) return cause;

  const status = statusOf(err);
  const text = messageOf(err);
  if (status === undefined) {
    // The guarded client's own errors (SDKs wrap them as causes) already say what happened and what to do.
    const outbound = findOutboundError(err);
    if (outbound?.code === 'blocked_address') {
      if (where.verifying) return new ApiError('invalid', 422, `baseUrl: ${where.baseUrl} cannot be used: ${outbound.message}`);
      return new ApiError('internal', 502, `${where.label} at ${where.baseUrl} cannot be used: ${outbound.message}`, {}, { retryable: false });
    }
    if (isTimeout(err) || outbound?.code === 'timeout') {
      return new ApiError('internal', 504, `${where.label} did not answer in time (${where.baseUrl})`, {}, { retryable: true });
    }
    const reason = outbound?.message ?? describeCause(err);
    if (where.verifying) return new ApiError('invalid', 422, `baseUrl: could not reach ${where.label} at ${where.baseUrl} (${reason})`);
    return new ApiError('internal', 502, `could not reach ${where.label} at ${where.baseUrl} (${reason})`, {}, { retryable: true });
  }
  const details = { providerStatus: status, retryable: status === 429 || status >= 500 };
  // Gemini answers a wrong key with 400 API_KEY_INVALID rather than 401.
  if (status === 401 || status === 403 || (status === 400 && /api[ _-]?key/i.test(text))) {
    return new ApiError('invalid', 422, `apiKey: ${where.label} refused this key (${status}: ${text})`, {}, details);
  }
  if (status === 404 && where.verifying) {
    const hint = where.baseUrlHint ? ` (${where.baseUrlHint})` : '';
    return new ApiError('invalid', 422, `baseUrl: ${where.baseUrl} answered 404 (not found), so it does not look like the API of ${where.label}; check the address${hint}`, {}, details);
  }
  if (status === 429) {
    return new ApiError('rate_limited', 429, `${where.label} is rate limiting this key: ${text}`, { 'Retry-After': '30' }, details);
  }
  if (status >= 400 && status < 500) {
    return new ApiError('bad_request', 400, `${where.label} rejected the request (${status}): ${text}`, {}, details);
  }
  return new ApiError('internal', 502, `${where.label} failed (${status}): ${text}`, {}, details);
}

/**
 * A provider failure that will not pass by trying again: the key refused (401, 403, Gemini's 400 for a bad key), the
 * address refused, unknown or blocked. Voice ends on one of these instead of failing every turn (docs/voice.md).
 */
export function isLastingFailure(err: unknown): boolean {
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (!(err instanceof ApiError) && cause instanceof ApiError) return isLastingFailure(cause);
  const message = String((err as Error | null)?.message ?? err);
  if (err instanceof ApiError) {
    const status = (err.details as { providerStatus?: number } | undefined)?.providerStatus;
    if (status === 401 || status === 403 || message.startsWith('apiKey:')) return true;
    if ((err.details as { retryable?: boolean } | undefined)?.retryable === false && err.status === 502) return true;
  }
  if (/\b(401|403)\b.*(unauthori[sz]ed|forbidden|api key|invalid key|refused this key)/i.test(message)) return true;
  // The guarded client's words (security/outbound-error.ts), or an errno code where a socket library threw it.
  const refused = /\b(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH)\b|connection refused|host unreachable|network unreachable|could not resolve \S+|has no usable address/i;
  return refused.test(message) || refused.test(String((cause as Error | undefined)?.message ?? ''));
}

function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === 'number' && s >= 100 ? s : undefined;
}

/** The provider's own message: OpenAI SDK errors carry `.error.message`; Gemini SDK errors carry JSON text. */
function messageOf(err: unknown): string {
  const e = err as { error?: { message?: unknown }; message?: unknown } | null;
  if (typeof e?.error?.message === 'string') return clip(e.error.message);
  const raw = typeof e?.message === 'string' ? e.message : String(err);
  try {
    const parsed = JSON.parse(raw) as { error?: { message?: string } };
    if (parsed?.error?.message) return clip(parsed.error.message);
  } catch { /* not JSON: use as is */ }
  return clip(raw.replace(/^\d{3}\s+/, ''));
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name ?? '';
  return name === 'TimeoutError' || name === 'APIConnectionTimeoutError' || /timed? ?out/i.test(String((err as Error)?.message));
}

/** The most telling part of a network failure: an errno code (ECONNREFUSED...) or the innermost message. */
function describeCause(err: unknown): string {
  let e: unknown = err;
  let message = String((err as Error)?.message ?? err);
  for (let i = 0; i < 5 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    if (typeof (e as Error).message === 'string' && (e as Error).message) message = (e as Error).message;
    e = (e as { cause?: unknown }).cause;
  }
  return clip(message);
}

function clip(s: string): string {
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** Reads a non-2xx fetch response into an error shaped like the SDKs' (status + provider message). */
export async function httpError(res: Response): Promise<Error & { status: number }> {
  let text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown; message?: unknown };
    const d = body.detail ?? body.error ?? body.message;
    if (typeof d === 'string') text = d;
    else if (d && typeof d === 'object' && typeof (d as { message?: unknown }).message === 'string') text = (d as { message: string }).message;
  } catch { /* plain text body */ }
  return Object.assign(new Error(text || res.statusText), { status: res.status });
}
