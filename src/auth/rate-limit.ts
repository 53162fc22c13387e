import type { Clock } from '../kernel/clock.js';
import { RateLimiter } from '../security/rate-limiter.js';

const MINUTE_MS = 60_000;

/** The sign-in limits (docs/access.md, "Sign-in limits"). */
export const SIGN_IN_LIMITS = Object.freeze({
  /** Failed attempts from one address, over every account: guessing many accounts, or a shared office NAT. */
  address: Object.freeze({ limit: 30, windowMs: 15 * MINUTE_MS }),
  /** Failed attempts from one address on one account. */
  pair: Object.freeze({ limit: 10, windowMs: 15 * MINUTE_MS }),
  /**
   * The account's brake: past `accountFailures` failed attempts in `windowMs` from all addresses together, the
   * account is under attack and each address may fail on it only `perAddress` times in that window.
   */
  brake: Object.freeze({ accountFailures: 20, perAddress: 3, windowMs: 60 * MINUTE_MS }),
});

/**
 * Sign-in throttling by address, by account and address, and a slower brake per account. Nothing here ever
 * refuses an address that has not failed on the account: a distributed attack on an e-mail cannot lock its
 * owner out, because from an address with no recent failures the password is always checked (and the right one
 * signs in). The brake instead cuts what each attacking address may try on that account.
 */
export class SignInThrottle {
  private address: RateLimiter;
  private pair: RateLimiter;
  private account: RateLimiter;
  private brakedPair: RateLimiter;

  constructor(clock: Clock, private limits = SIGN_IN_LIMITS) {
    this.address = new RateLimiter(clock, limits.address.windowMs);
    this.pair = new RateLimiter(clock, limits.pair.windowMs);
    this.account = new RateLimiter(clock, limits.brake.windowMs);
    this.brakedPair = new RateLimiter(clock, limits.brake.windowMs);
  }

  /** Milliseconds before `address` may try `account` again; 0 when the password may be checked now. */
  waitMs(account: string, address: string): number {
    const pair = pairKey(account, address);
    const l = this.limits;
    const wait = Math.max(this.address.waitMs(address, l.address.limit), this.pair.waitMs(pair, l.pair.limit));
    const braked = this.account.count(account) >= l.brake.accountFailures;
    return braked ? Math.max(wait, this.brakedPair.waitMs(pair, l.brake.perAddress)) : wait;
  }

  /** Counts an attempt before its password is checked, so attempts sent in parallel are counted too. */
  attempt(account: string, address: string): void {
    const pair = pairKey(account, address);
    const l = this.limits;
    this.address.hit(address, l.address.limit);
    this.pair.hit(pair, l.pair.limit);
    // Kept up to the pair limit: the brake may come on while this address already has failures on the account.
    this.brakedPair.hit(pair, l.pair.limit);
    this.account.hit(account, l.brake.accountFailures);
  }

  /**
   * The password was right: the attempt is taken back, and this address's failures on the account are
   * forgiven. The account's count only loses this attempt: the owner signing in does not release the brake on
   * the addresses still guessing.
   */
  succeeded(account: string, address: string): void {
    const pair = pairKey(account, address);
    this.address.forgive(address);
    this.pair.reset(pair);
    this.brakedPair.reset(pair);
    this.account.forgive(account);
  }
}

const pairKey = (account: string, address: string) => `${account}\n${address}`;
