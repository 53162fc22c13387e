/**
 * The one way the panel talks to the server: the public REST API at /api/v1 with the session cookie, plus
 * the X-CSRF-Token header (from sign-in or GET /me) on every request that changes something.
 */

/** An answer of the form { error: { code, message, details? } }; `message` is what the panel shows. */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: unknown) {
    super(message);
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => {};

export function setCsrfToken(token: string): void { csrfToken = token; }
/** Called when a request answers 401: the session ended (expired, signed out elsewhere, password changed). */
export function whenSignedOut(fn: () => void): void { onSignedOut = fn; }

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const res = await send(`/api/v1${path}`, {
    method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = data?.error;
    const failure = new ApiFailure(res.status, err?.code ?? 'internal', err?.message ?? `the server answered ${res.status}`, err?.details);
    if (res.status === 401 && !path.startsWith('/auth/') && !path.startsWith('/invites/') && path !== '/me') onSignedOut();
    throw failure;
  }
  return data as T;
}

export const OFFLINE_MESSAGE = 'Cannot reach the server. Check your connection and try again.';

/** fetch, with a network failure (the browser's "Failed to fetch") turned into a sentence a person can act on. */
export async function send(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiFailure(0, 'network', OFFLINE_MESSAGE);
  }
}

/**
 * The path of a URL the API built from PUBLIC_URL (voice samples, face images), to load from this page's own
 * origin: the panel's CSP allows only that, and behind a proxy PUBLIC_URL may name another host.
 */
export function localPath(url: string): string {
  try { const u = new URL(url, location.href); return u.pathname + u.search; } catch { return url; }
}

/** Query string from the defined values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
