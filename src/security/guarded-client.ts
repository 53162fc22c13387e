/**
 * The one outbound HTTP client for user-supplied URLs (webhooks, HTTP tools, MCP over HTTP, page,
 * sitemap and crawl fetches). Address checks live in the connector (guarded-connector.ts), so every
 * connection - first hop, redirect hop, fetch() redirect - is checked and pinned the same way.
 */
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { systemClock, type Clock } from '../kernel/clock.js';
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

/** A node-fetch-style response: fetch's fields, with the body as a Node stream (undici's, with text()/json()). */
export class NodeBodyResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText = '';
  readonly headers = new Headers();
  readonly body: Dispatcher.ResponseData['body'];
  constructor(res: Dispatcher.ResponseData, readonly url: string, readonly redirected: boolean) {
    this.status = res.statusCode;
    this.ok = res.statusCode >= 200 && res.statusCode < 300;
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of [v].flat()) this.headers.append(k, one);
    this.body = res.body;
  }
  get bodyUsed() { return this.body.bodyUsed; }
  text() { return this.body.text(); }
  json() { return this.body.json(); }
  arrayBuffer() { return this.body.arrayBuffer(); }
  blob() { return this.body.blob(); }
}

export type NodeFetch = (input: string | URL, init?: RequestInit) => Promise<NodeBodyResponse>;

export interface GuardedClient {
  request(url: string | URL, options?: OutboundRequestOptions): Promise<OutboundResponse>;
  fetch: GuardedFetch;
  /** fetch() returning a node-fetch-style response (Node stream body): the cheap path for the OpenAI SDK's streams. */
  nodeFetch: NodeFetch;
  /** Closes pooled connections; call on shutdown (and at the end of tests). */
  close(): Promise<void>;
}

const DEFAULTS = Object.freeze({ timeoutMs: 10_000, maxResponseBytes: 2 * 1024 * 1024, userAgent: 'ServiceChat/1', maxRedirects: 3 });
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Credentials must not follow a redirect to another origin (as in the fetch standard).
const CROSS_ORIGIN_DROP = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** One request as open() sends it (headers already lower-cased). */
interface Hop {
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  redirectPolicy: RedirectPolicy;
  maxRedirects: number;
}

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

  /**
   * What a failed request throws: our timeout (with `timeoutMessage`) when the deadline fired, the caller's own
   * abort reason when it aborted, otherwise the error as an OutboundError.
   */
  function failure(err: unknown, host: string, timedOut: boolean, timeoutMessage: string, callerSignal?: AbortSignal | null): unknown {
    if (timedOut) return new OutboundError('timeout', timeoutMessage, { cause: err });
    if (callerSignal?.aborted && !findOutboundError(err)) return callerSignal.reason;
    return toOutboundError(err, host);
  }
  const noResponseWithin = (host: string) => `no response from ${host} within ${defaults.timeoutMs} ms`;

  /** Sends the request and follows redirects per policy; the caller reads (or drops) the final body. */
  async function open(at: { url: URL }, o: Hop & { signal: AbortSignal }): Promise<{ res: Dispatcher.ResponseData; redirects: number }> {
    let { url } = at;
    let { method, body } = o;
    const headers = { ...o.headers };
    for (let redirects = 0; ; ) {
      const res = await agent.request({ origin: url.origin, path: url.pathname + url.search, method, headers, body, signal: o.signal });
      const location = [res.headers.location].flat()[0];
      if (o.redirectPolicy === 'manual' || !REDIRECT_STATUSES.has(res.statusCode) || !location) return { res, redirects };
      await res.body.dump();
      if (redirects >= o.maxRedirects) {
        throw new OutboundError('too_many_redirects', `more than ${o.maxRedirects} redirects, last from ${bareHost(url.hostname)}`);
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
      url = at.url = next;
    }
  }

  /** Lower-cased headers without Host and Content-Length (undici derives both per hop), with our User-Agent by default. */
  function hopHeaders(entries: Iterable<[string, string]>): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [k, v] of entries) headers[k.toLowerCase()] = v;
    delete headers.host;
    delete headers['content-length'];
    headers['user-agent'] ??= defaults.userAgent;
    return headers;
  }

  async function request(input: string | URL, o: OutboundRequestOptions = {}): Promise<OutboundResponse> {
    const at = { url: parseOutboundUrl(input) };
    const timeoutMs = o.timeoutMs ?? defaults.timeoutMs;
    const maxBytes = o.maxResponseBytes ?? defaults.maxResponseBytes;
    const { signal, state, done } = deadline(timeoutMs, bareHost(at.url.hostname), o.signal);
    try {
      const { res, redirects } = await open(at, {
        method: (o.method ?? 'GET').toUpperCase(), headers: hopHeaders(Object.entries(o.headers ?? {})), body: o.body ?? null,
        redirectPolicy: o.redirectPolicy ?? 'follow', maxRedirects: o.maxRedirects ?? DEFAULTS.maxRedirects, signal,
      });
      const tooLarge = () => new OutboundError('too_large', `response from ${bareHost(at.url.hostname)} is larger than ${maxBytes} bytes`);
      // A declared length over the limit fails before any byte is read.
      if (o.failOnTooLarge && Number([res.headers['content-length']].flat()[0]) > maxBytes) {
        dropBody(res.body);
        throw tooLarge();
      }
      const read = await readLimited(res.body, maxBytes);
      if (read.truncated && o.failOnTooLarge) throw tooLarge();
      return { status: res.statusCode, headers: res.headers, body: read.body, url: at.url.href, redirects, truncated: read.truncated };
    } catch (err) {
      const host = bareHost(at.url.hostname);
      throw failure(err, host, state.timedOut, `request to ${host} took longer than ${timeoutMs} ms`, o.signal);
    } finally {
      done();
    }
  }

  /**
   * fetch() with node-fetch's response shape: the body is undici's Node stream, read without WHATWG streams.
   * For SDKs that accept it (the OpenAI SDK iterates any async-iterable body): a streamed reply then costs far
   * less CPU and garbage per chunk than through fetch(). Same checks, redirects and time limit as fetch().
   */
  const nodeFetch: NodeFetch = async (input, init = {}) => {
    const at = { url: parseOutboundUrl(input) };
    const headers = hopHeaders(new Headers(init.headers));
    let body: string | Uint8Array | null = null;
    if (typeof init.body === 'string' || init.body instanceof Uint8Array) body = init.body;
    else if (init.body != null) {
      // FormData, Blob, URLSearchParams...: encoded (with their content type) as fetch would.
      const encoded = new Response(init.body as BodyInit);
      body = new Uint8Array(await encoded.arrayBuffer());
      headers['content-type'] ??= encoded.headers.get('content-type') ?? 'application/octet-stream';
    }
    const { signal, state, done, stopTimer } = deadline(defaults.timeoutMs, bareHost(at.url.hostname), init.signal);
    try {
      const { res, redirects } = await open(at, {
        method: (init.method ?? 'GET').toUpperCase(), headers, body,
        redirectPolicy: init.redirect === 'manual' || init.redirect === 'error' ? 'manual' : 'follow', maxRedirects: DEFAULTS.maxRedirects, signal,
      });
      // As in fetch(): the timer covers connecting and headers; the caller's signal stays linked to the body.
      stopTimer();
      res.body.once('close', done);
      return new NodeBodyResponse(res, at.url.href, redirects > 0);
    } catch (err) {
      done();
      const host = bareHost(at.url.hostname);
      throw failure(err, host, state.timedOut, noResponseWithin(host), init.signal);
    }
  };

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
      const host = bareHost(url.hostname);
      throw failure(err, host, state.timedOut, noResponseWithin(host), merged.signal);
    }
  };

  return { request, fetch: guardedFetch, nodeFetch, close: () => agent.close() };
}
