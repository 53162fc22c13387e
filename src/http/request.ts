import type uWS from 'uWebSockets.js';
import type { Logger } from '../kernel/log.js';
import { parseCookies } from './cookies.js';
import type { HttpRequest } from './types.js';

const NO_BODY = Buffer.alloc(0);

/**
 * A request as handlers see it. What many requests never use is made on first use: the abort signal (an
 * AbortController is one of the costlier objects a request would allocate), the request's child logger, the
 * parsed query and cookies. Everything it is made from is copied out of uWS before the handler runs, except the
 * client's address: reading it from uWS makes a native ArrayBuffer (9% of the event loop on a cached list, which
 * almost never needs it), so it is read on first use while the response is open. Read it before the answer is
 * written (handlers that need it, sign-in, read it first thing); after the answer or an abort it is ''.
 */
/**
 * The client's address. Behind `trustedHops` proxies (TRUST_PROXY) it is the X-Forwarded-For entry the
 * outermost trusted proxy added: counted from the right, since each proxy appends what it saw and entries to the
 * left of those are whatever the client sent (as Express's `trust proxy` with a number). A header with fewer
 * entries gives its leftmost; no header, or no trusted proxy, the socket's peer.
 */
export function clientIp(res: uWS.HttpResponse, headers: Record<string, string>, trustedHops: number): string {
  const forwarded = trustedHops > 0 ? headers['x-forwarded-for'] : undefined;
  if (forwarded) return forwardedClient(forwarded, trustedHops);
  const ip = Buffer.from(res.getRemoteAddressAsText()).toString();
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** The entry `trustedHops` from the right of an X-Forwarded-For value (its leftmost when it has fewer). */
export function forwardedClient(header: string, trustedHops: number): string {
  const hops = header.split(',').map((h) => h.trim()).filter(Boolean);
  const ip = hops[Math.max(0, hops.length - trustedHops)] ?? '';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

export class IncomingRequest implements HttpRequest {
  params: Record<string, string> = {};
  body: Buffer = NO_BODY;
  private abortController: AbortController | null = null;
  private aborted = false;
  private childLog: Logger | null = null;
  private parsedQuery: URLSearchParams | null = null;
  private parsedCookies: Record<string, string> | null = null;
  private address: string | undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
    readonly headers: Record<string, string>,
    private res: uWS.HttpResponse | null,
    private readonly trustProxy: number,
    readonly requestId: string,
    private readonly rootLog: Logger,
  ) {}

  get ip(): string {
    return (this.address ??= this.res ? clientIp(this.res, this.headers, this.trustProxy) : '');
  }

  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  get cookies(): Record<string, string> {
    return (this.parsedCookies ??= parseCookies(this.headers.cookie));
  }

  get signal(): AbortSignal {
    if (!this.abortController) {
      this.abortController = new AbortController();
      if (this.aborted) this.abortController.abort();
    }
    return this.abortController.signal;
  }

  get log(): Logger {
    return (this.childLog ??= this.rootLog.child({ requestId: this.requestId }));
  }

  /** The answer is being written: uWS's response is not read again. */
  answered(): void {
    this.res = null;
  }

  /** The client went away before the answer was written. */
  abort(): void {
    this.aborted = true;
    this.res = null;
    this.abortController?.abort();
  }
}
