import type { Clock } from '../clock.js';

/**
 * Sliding-window counter per key (an IP, an account): at most `limit` hits within `windowMs`.
 * In memory, per process: sign-in limits are a brake on guessing, not an accounting record.
 */
export class RateLimiter {
  private hits = new Map<string, number[]>();

  constructor(private clock: Clock, readonly limit: number, readonly windowMs: number, private maxKeys = 50_000) {}

  /** Milliseconds until this key may be used again; 0 when it may be used now. */
  waitMs(key: string): number {
    const list = this.recent(key);
    if (list.length < this.limit) return 0;
    return list[list.length - this.limit] + this.windowMs - this.clock.now();
  }

  /** Hits inside the window. */
  count(key: string): number {
    return this.recent(key).length;
  }

  hit(key: string): void {
    const list = this.recent(key);
    list.push(this.clock.now());
    this.hits.set(key, list);
    if (this.hits.size > this.maxKeys) this.sweep();
  }

  /** Takes back the newest hit (an attempt that turned out to be legitimate). */
  forgive(key: string): void {
    const list = this.hits.get(key);
    if (!list) return;
    list.pop();
    if (!list.length) this.hits.delete(key);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.clock.now() - this.windowMs;
    const list = (this.hits.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.hits.set(key, list); else this.hits.delete(key);
    return list;
  }

  /** Drops keys with no hit inside the window, so a flood of distinct IPs cannot grow memory without bound. */
  private sweep(): void {
    const since = this.clock.now() - this.windowMs;
    for (const [k, list] of this.hits) if (list[list.length - 1] <= since) this.hits.delete(k);
  }
}

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

  constructor(clock: Clock, limits = SIGN_IN_LIMITS) {
    this.address = new RateLimiter(clock, limits.address.limit, limits.address.windowMs);
    this.pair = new RateLimiter(clock, limits.pair.limit, limits.pair.windowMs);
    this.account = new RateLimiter(clock, limits.brake.accountFailures, limits.brake.windowMs);
    this.brakedPair = new RateLimiter(clock, limits.brake.perAddress, limits.brake.windowMs);
  }

  /** Milliseconds before `address` may try `account` again; 0 when the password may be checked now. */
  waitMs(account: string, address: string): number {
    const pair = pairKey(account, address);
    const wait = Math.max(this.address.waitMs(address), this.pair.waitMs(pair));
    const braked = this.account.count(account) >= this.account.limit;
    return braked ? Math.max(wait, this.brakedPair.waitMs(pair)) : wait;
  }

  /** Counts an attempt before its password is checked, so attempts sent in parallel are counted too. */
  attempt(account: string, address: string): void {
    const pair = pairKey(account, address);
    this.address.hit(address);
    this.pair.hit(pair);
    this.brakedPair.hit(pair);
    this.account.hit(account);
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
