/**
 * The one outbound HTTP client for user-supplied URLs (webhooks, HTTP tools, MCP over HTTP, page,
 * sitemap and crawl fetches). Address checks live in the connector (guarded-connector.ts), so every
 * connection - first hop, redirect hop, fetch() redirect - is checked and pinned the same way.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { systemClock, type Clock } from '../clock.js';
import { createGuardedConnector, bareHost, type ConnectTarget, type Resolver } from './guarded-connector.js';
import { OutboundError, findOutboundError, toOutboundError } from './outbound-error.js';
import { dropBody, readLimited } from './read-limited.js';

export type { ConnectTarget, Resolver, ResolvedAddress } from './guarded-connector.js';
export { OutboundError, type OutboundErrorCode } from './outbound-error.js';

export interface GuardedClientOptions {
  /** ALLOW_PRIVATE_NETWORK: when true no address is refused (loopback tests, intranet installs). */
  allowPrivateNetwork: boolean;
  lookup?: Resolver;
  /** Default total time per request(), and time to response headers per fetch(). */
  timeoutMs?: number;
  maxResponseBytes?: number;
  userAgent?: string;
  /** Refuse plain http: on every hop (the spec's production rule for webhook URLs). */
  httpsOnly?: boolean;
  /** Sees the checked address just before each socket opens; throwing cancels that connection. */
  beforeConnect?: (target: ConnectTarget) => void;
  /** Extra CA certificates (PEM) to trust besides the system roots. */
  tlsCa?: string | Buffer | Array<string | Buffer>;
  clock?: Clock;
  /** Test hook only: replaces isPublicAddress. Production code never sets it. */
  isPublic?: (ip: string) => boolean;
}

/** 'follow' and 'webhook' are the same rule (spec: 301/302 POST becomes GET, 303 GET, 307/308 keep); 'manual' returns 3xx as is. */
export type RedirectPolicy = 'follow' | 'webhook' | 'manual';

export interface OutboundRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | null;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** true: a longer body throws `too_large`. Default false: the body is cut and `truncated` is set. */
  failOnTooLarge?: boolean;
  maxRedirects?: number;
  redirectPolicy?: RedirectPolicy;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The URL that gave this response, after redirects. */
  url: string;
  redirects: number;
  truncated: boolean;
}

export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface GuardedClient {
  request(url: string | URL, options?: OutboundRequestOptions): Promise<OutboundResponse>;
  fetch: GuardedFetch;
  /** Closes pooled connections; call on shutdown (and at the end of tests). */
  close(): Promise<void>;
}

const DEFAULTS = Object.freeze({ timeoutMs: 10_000, maxResponseBytes: 2 * 1024 * 1024, userAgent: 'ServiceChat/1', maxRedirects: 3 });
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Credentials must not follow a redirect to another origin (as in the fetch standard).
const CROSS_ORIGIN_DROP = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** Parses and checks a URL's shape (scheme, no credentials); the address check happens at connect. */
export function parseOutboundUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new OutboundError('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', `scheme ${url.protocol} is not allowed; use http or https`);
  }
  if (url.username || url.password) {
    throw new OutboundError('invalid_url', 'URLs with a user name or password are not allowed; send credentials in a header');
  }
  return url;
}

export function createGuardedClient(options: GuardedClientOptions): GuardedClient {
  const clock = options.clock ?? systemClock;
  const defaults = {
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    userAgent: options.userAgent ?? DEFAULTS.userAgent,
  };
  const agent = new Agent({
    connect: createGuardedConnector(options),
    // Our own timer bounds request(); fetch() bodies may be long-lived streams (MCP SSE).
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  /** An AbortController that fires on our timer or the caller's signal, with a cleanup function. */
  function deadline(timeoutMs: number, host: string, ...signals: (AbortSignal | null | undefined)[]) {
    const controller = new AbortController();
    const state = { timedOut: false };
    const timer = clock.setTimeout(() => {
      state.timedOut = true;
      controller.abort(new OutboundError('timeout', `request to ${host} took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = (s: AbortSignal) => () => controller.abort(s.reason);
    const live = signals.filter((s): s is AbortSignal => !!s);
    const listeners = live.map((s) => {
      const fn = onAbort(s);
      if (s.aborted) fn();
      else s.addEventListener('abort', fn, { once: true });
      return fn;
    });
    const stopTimer = () => clock.clearTimeout(timer);
    const done = () => {
      stopTimer();
      live.forEach((s, i) => s.removeEventListener('abort', listeners[i]));
    };
    return { signal: controller.signal, state, done, stopTimer };
  }

  async function request(input: string | URL, o: OutboundRequestOptions = {}): Promise<OutboundResponse> {
    let url = parseOutboundUrl(input);
    const timeoutMs = o.timeoutMs ?? defaults.timeoutMs;
    const maxBytes = o.maxResponseBytes ?? defaults.maxResponseBytes;
    const maxRedirects = o.maxRedirects ?? DEFAULTS.maxRedirects;
    let method = (o.method ?? 'GET').toUpperCase();
    let body = o.body ?? null;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = v;
    // undici derives Host and Content-Length per hop; stale copies would be wrong after a redirect.
    delete headers.host;
    delete headers['content-length'];
    headers['user-agent'] ??= defaults.userAgent;

    const { signal, state, done } = deadline(timeoutMs, bareHost(url.hostname), o.signal);
    try {
      for (let redirects = 0; ; ) {
        const res = await agent.request({ origin: url.origin, path: url.pathname + url.search, method, headers, body, signal });
        const location = [res.headers.location].flat()[0];
        if (o.redirectPolicy !== 'manual' && REDIRECT_STATUSES.has(res.statusCode) && location) {
          await res.body.dump();
          if (redirects >= maxRedirects) {
            throw new OutboundError('too_many_redirects', `more than ${maxRedirects} redirects, last from ${bareHost(url.hostname)}`);
          }
          redirects++;
          const next = parseOutboundUrl(new URL(location, url));
          const toGet = (res.statusCode === 303 && method !== 'HEAD') || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST');
          if (toGet) {
            method = 'GET';
            body = null;
            for (const h of BODY_HEADERS) delete headers[h];
          }
          if (next.origin !== url.origin) for (const h of CROSS_ORIGIN_DROP) delete headers[h];
          url = next;
          continue;
        }
        const tooLarge = () => new OutboundError('too_large', `response from ${bareHost(url.hostname)} is larger than ${maxBytes} bytes`);
        // A declared length over the limit fails before any byte is read.
        if (o.failOnTooLarge && Number([res.headers['content-length']].flat()[0]) > maxBytes) {
          dropBody(res.body);
          throw tooLarge();
        }
        const read = await readLimited(res.body, maxBytes);
        if (read.truncated && o.failOnTooLarge) throw tooLarge();
        return { status: res.statusCode, headers: res.headers, body: read.body, url: url.href, redirects, truncated: read.truncated };
      }
    } catch (err) {
      if (state.timedOut) throw new OutboundError('timeout', `request to ${bareHost(url.hostname)} took longer than ${timeoutMs} ms`, { cause: err });
      if (o.signal?.aborted && !findOutboundError(err)) throw o.signal.reason;
      throw toOutboundError(err, bareHost(url.hostname));
    } finally {
      done();
    }
  }

  const guardedFetch: GuardedFetch = async (input, init = {}) => {
    let merged: RequestInit & { duplex?: 'half' } = init;
    let target: string | URL;
    if (typeof input === 'string' || input instanceof URL) target = input;
    else {
      // A Request from another fetch implementation (Node's global one) is unpacked field by field.
      target = input.url;
      merged = { method: input.method, headers: input.headers, body: input.body, signal: input.signal, redirect: input.redirect, ...init };
      if (merged.body) merged.duplex = 'half';
    }
    const url = parseOutboundUrl(target);
    const headers = new Headers(merged.headers);
    if (!headers.has('user-agent')) headers.set('user-agent', defaults.userAgent);
    const { signal, state, done, stopTimer } = deadline(defaults.timeoutMs, bareHost(url.hostname), merged.signal);
    try {
      const res = await undiciFetch(url, { ...(merged as object), headers: [...headers], signal, dispatcher: agent });
      // The timer covers connecting and headers only; the body is the caller's stream to read or
      // cancel, so the caller's signal stays linked to it.
      stopTimer();
      return res as unknown as Response;
    } catch (err) {
      done();
      if (state.timedOut) throw new OutboundError('timeout', `no response from ${bareHost(url.hostname)} within ${defaults.timeoutMs} ms`, { cause: err });
      if (merged.signal?.aborted && !findOutboundError(err)) throw merged.signal.reason;
      throw toOutboundError(err, bareHost(url.hostname));
    }
  };

  return { request, fetch: guardedFetch, close: () => agent.close() };
}
