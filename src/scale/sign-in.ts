import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import type { ScaleNode } from './node.js';

type Window = { limit: number; windowMs: number };
/** The sign-in limits: src/auth/rate-limit.ts's SIGN_IN_LIMITS, handed in by src/auth/accounts.ts. */
export interface SignInLimits {
  readonly address: Window;
  readonly pair: Window;
  readonly brake: { readonly accountFailures: number; readonly perAddress: number; readonly windowMs: number };
}
const pairKey = (account: string, address: string) => `${account}\n${address}`;

/**
 * The sign-in throttle of src/auth/rate-limit.ts (same limits, same rules) counted across a scale-out group:
 * each window is a Redis sorted set of attempt times, so guesses spread over the processes add up.
 */
export class GroupSignInThrottle {
  private readonly windows: Record<'address' | 'pair' | 'account' | 'brakedPair', Window>;

  constructor(private readonly node: ScaleNode, private readonly app: AppContext, limits: SignInLimits) {
    this.windows = {
      address: limits.address, pair: limits.pair,
      account: { limit: limits.brake.accountFailures, windowMs: limits.brake.windowMs },
      brakedPair: { limit: limits.brake.perAddress, windowMs: limits.brake.windowMs },
    };
  }

  private key(kind: keyof GroupSignInThrottle['windows'], id: string) { return `${this.node.prefix}signin:${kind}:${id}`; }

  /** Milliseconds before `address` may try `account` again; 0 when the password may be checked now. */
  async waitMs(account: string, address: string): Promise<number> {
    const now = this.app.clock.now();
    const pair = pairKey(account, address);
    const w = this.windows;
    const [a, p, acc, bp] = await Promise.all([
      this.node.cmd.slidingWait(this.key('address', address), now, w.address.windowMs, w.address.limit),
      this.node.cmd.slidingWait(this.key('pair', pair), now, w.pair.windowMs, w.pair.limit),
      this.node.cmd.slidingWait(this.key('account', account), now, w.account.windowMs, w.account.limit),
      this.node.cmd.slidingWait(this.key('brakedPair', pair), now, w.brakedPair.windowMs, w.brakedPair.limit),
    ]);
    const wait = Math.max(a[0], p[0]);
    return acc[1] >= w.account.limit ? Math.max(wait, bp[0]) : wait;
  }

  /** Counts an attempt before its password is checked (one round trip for the four windows). */
  async attempt(account: string, address: string): Promise<string> {
    const now = this.app.clock.now();
    const member = `${now}-${randomBytes(4).toString('hex')}`;
    const pair = pairKey(account, address);
    const multi = this.node.cmd.multi();
    for (const [kind, id] of [['address', address], ['pair', pair], ['brakedPair', pair], ['account', account]] as const) {
      multi.zadd(this.key(kind, id), now, member).pexpire(this.key(kind, id), this.windows[kind].windowMs);
    }
    await multi.exec();
    return member;
  }

  /** The password was right: this attempt is taken back and this address's failures on the account forgiven. */
  async succeeded(account: string, address: string, member: string): Promise<void> {
    const pair = pairKey(account, address);
    await this.node.cmd.multi()
      .zrem(this.key('address', address), member).del(this.key('pair', pair)).del(this.key('brakedPair', pair))
      .zrem(this.key('account', account), member).exec();
  }
}
