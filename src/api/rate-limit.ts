import type { AppContext } from '../app/context.js';
import type { Principal } from '../auth/principal.js';
import { RateLimiter } from '../security/rate-limiter.js';
import { rateLimited } from '../kernel/errors.js';
import type { HttpRequest } from '../http/types.js';

const MINUTE_MS = 60_000;

/**
 * The REST API's own rate limits (docs/access.md, "API rate limits"): requests a minute per client address,
 * counted before the caller is known (a flood of bad tokens is slowed too), and per API token. In memory, per
 * process, like the sign-in limits: a brake on abuse and runaway scripts, not an accounting record.
 */
export class ApiRateLimits {
  private readonly address: RateLimiter;
  private readonly token: RateLimiter;

  /** The API makes one when it is built (src/api/build.ts). */
  constructor(private readonly app: AppContext) {
    this.address = new RateLimiter(app.clock, MINUTE_MS);
    this.token = new RateLimiter(app.clock, MINUTE_MS);
  }

  /** Throws 429 rate_limited when the request's address has used its minute. */
  limitAddress(req: Pick<HttpRequest, 'ip'>): void {
    const limit = this.app.config.apiRatePerAddress;
    if (!limit) return;
    const waitMs = this.address.take(req.ip, limit);
    if (waitMs) throw rateLimited(waitMs / 1000, `too many requests from this address: at most ${limit} a minute reach the API from one address. Wait for the seconds in Retry-After, then send fewer requests (the server's API_RATE_PER_ADDRESS sets the limit).`);
  }

  /** Throws 429 rate_limited when the API token has used its minute (sessions are limited by their address). */
  limitToken(principal: Principal | null): void {
    const limit = this.app.config.apiRatePerToken;
    if (!limit || principal?.kind !== 'token') return;
    const waitMs = this.token.take(principal.tokenId, limit);
    if (waitMs) throw rateLimited(waitMs / 1000, `too many requests with this API token: at most ${limit} a minute. Wait for the seconds in Retry-After, then send fewer requests (the server's API_RATE_PER_TOKEN sets the limit).`);
  }
}

/** Paths the limits apply to: the REST API (the widget's own endpoints have per-bot limits). */
export const isRateLimitedPath = (path: string) => path.startsWith('/api/v1/');
