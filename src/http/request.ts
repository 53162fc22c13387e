import type { Logger } from '../log.js';
import { parseCookies } from './cookies.js';
import type { HttpRequest } from './types.js';

const NO_BODY = Buffer.alloc(0);

/**
 * A request as handlers see it. What many requests never use is made on first use: the abort signal (an
 * AbortController is one of the costlier objects a request would allocate), the request's child logger, the
 * parsed query and cookies. Everything it is made from is copied out of uWS before the handler runs.
 */
export class IncomingRequest implements HttpRequest {
  params: Record<string, string> = {};
  body: Buffer = NO_BODY;
  private abortController: AbortController | null = null;
  private aborted = false;
  private childLog: Logger | null = null;
  private parsedQuery: URLSearchParams | null = null;
  private parsedCookies: Record<string, string> | null = null;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
    readonly headers: Record<string, string>,
    readonly ip: string,
    readonly requestId: string,
    private readonly rootLog: Logger,
  ) {}

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

  /** The client went away before the answer was written. */
  abort(): void {
    this.aborted = true;
    this.abortController?.abort();
  }
}
