import { createHmac, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { ConfigError } from '../config/index.js';
import { ApiError } from '../kernel/errors.js';
import { m, metricsEnabled } from '../metrics/registry.js';
import type { Logger } from '../kernel/log.js';
import { CLAIM_SCRIPTS, LEASE_SCRIPTS, LIMIT_SCRIPTS, SEAT_SCRIPTS, WATCH_SCRIPTS } from './scripts.js';
import { ConversationWatchers } from './conversation-watchers.js';
import { Heartbeat } from './heartbeat.js';
import { QuietPublisher } from './quiet-publisher.js';

/** A process of the group is gone (its channel has no subscriber) or did not answer in time. */
export class NodeGoneError extends Error { readonly code = 'node_gone'; }
/** Redis cannot be reached now: the caller refuses what needs coordination (docs/operations.md, Scale-out). */
export class CoordinationDownError extends ApiError {
  constructor() {
    super('unavailable', 503, 'the coordination server (REDIS_URL) cannot be reached, and this needs another process of the group; try again in a few seconds', { 'Retry-After': '5' });
  }
}

/**
 * How often the heartbeat goes at most (src/scale/heartbeat.ts: membership, leases, presence, the clock in one
 * pipelined write), and how long it may go unanswered before Redis counts as away (a frozen Redis keeps its sockets).
 */
const BEAT_MS = 1000;
const UNANSWERED_MS = 2000;
/** A command Redis does not answer within this time fails (a frozen or overloaded Redis never hangs a caller). */
const COMMAND_TIMEOUT_MS = 2000;

type Handler = (msg: any) => void;
type LeaseResult = [mine: number, token: number, owner: string, watchers: string[]];
interface ScaleRedis extends Redis {
  leaseAcquire(key: string, fence: string, last: string, watchers: string, node: string, ttl: number): Promise<LeaseResult>;
  leaseCheck(key: string, value: string): Promise<number>;
  leaseRelease(key: string, value: string): Promise<number>;
  leaseTransfer(key: string, fence: string, last: string, value: string, to: string, ttl: number): Promise<number>;
  leaseRenew(n: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
  slidingHit(key: string, now: number, windowMs: number, limit: number, member: string): Promise<number>;
  slidingWait(key: string, now: number, windowMs: number, limit: number): Promise<[number, number]>;
  claimRenew(key: string, holder: string, ttl: number): Promise<number>;
  claimRelease(key: string, holder: string): Promise<number>;
  homeClaim(key: string, node: string, ttl: number): Promise<string>;
  seatTake(key: string, member: string, max: number, ttl: number, membershipPrefix: string): Promise<number>;
  seatKeep(key: string, ttl: number, ...members: string[]): Promise<number>;
  convWatch(set: string, lease: string, node: string, open: '1' | '0', ttl: number, channelPrefix: string, notice: string): Promise<number>;
  convSend(set: string, node: string, channelPrefix: string, message: string): Promise<number>;
}

/**
 * What this installation's Redis keys and channels begin with when REDIS_PREFIX is not set: derived from the
 * server secret (the same on every process and machine of one installation, and different from another's), so
 * two installations sharing one Redis share nothing: not their limits, leases, events or seats.
 */
export function installationPrefix(secret: string): string {
  return `sc:${createHmac('sha256', secret).update('redis key prefix').digest('hex').slice(0, 12)}:`;
}
/** How long a process's membership lasts without renewal: what a killed process's voice seats outlive it by. */
export const MEMBERSHIP_MS = 3000;
/** Redis URLs may carry a password: messages show the host only. */
export const redisWhere = (url: string) => { try { const u = new URL(url); return `${u.protocol}//${u.host}`; } catch { return 'REDIS_URL'; } };

/**
 * This process's membership in a scale-out group: three Redis connections (commands, subscriptions, publishes
 * without answers), the
 * group's channels (events, cache invalidation, widget frames, requests to one process), conversation leases
 * with fencing tokens and shared counters, all run as Lua scripts so each is one atomic round trip.
 */
export class ScaleNode {
  readonly id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private handlers = new Map<string, Handler[]>();
  /** Channels of their own (subscribeChannel): messages are lines, split without parsing. */
  private lineHandlers = new Map<string, (lines: string[]) => void>();
  private rpcHandlers = new Map<string, (payload: any) => Promise<unknown>>();
  private pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private nextRpc = 1;
  private wasHealthy = true;
  private closing = false;
  /** When the oldest beat Redis has not answered yet was sent (null: the last one was answered). */
  private unansweredSince: number | null = null;
  private beatInFlight = false;
  /** Redis left a beat unanswered for UNANSWERED_MS (its sockets open: frozen, overloaded, cut off). */
  private stalled = false;
  private readonly healthListeners: Array<(up: boolean) => void> = [];
  /** How this process's broadcasts begin (JSON.stringify keeps the key order of { o, m }). */
  private readonly ownBroadcast = `{"o":${JSON.stringify(this.id)},`;
  /**
   * Commands sent to Redis by the command client (each command of a pipeline or MULTI block, a Lua script as one),
   * counted where ioredis sends them, and publishes sent without an answer: for the bench's per-turn count and the
   * metrics.
   */
  roundTrips = 0;

  /** `<membershipPrefix><process id>` exists while the process answers (renewed with each probe). */
  readonly membershipPrefix: string;
  /** Which processes have a widget open on the conversations owned here (their frames go there only). */
  readonly watchers: ConversationWatchers;
  /**
   * The process's one periodic timer (src/scale/heartbeat.ts): renews its membership each beat and runs the
   * group's periodic parts with it. A beat is every second, or every third of LEASE_MS when that is shorter.
   */
  readonly heartbeat: Heartbeat;

  private constructor(readonly cmd: ScaleRedis, readonly sub: Redis, private readonly quiet: QuietPublisher, private log: Logger, readonly leaseMs: number, readonly prefix: string) {
    this.membershipPrefix = `${prefix}node:`;
    this.heartbeat = new Heartbeat(Math.min(BEAT_MS, Math.max(100, Math.floor(leaseMs / 3))), () => this.beat(), log);
    this.watchers = new ConversationWatchers(this);
  }

  /**
   * Connects both clients or throws a ConfigError naming REDIS_URL (the server does not start without it).
   * `prefix` begins every key and channel (installationPrefix, or REDIS_PREFIX).
   */
  static async connect(url: string, log: Logger, leaseMs: number, prefix = 'sc:'): Promise<ScaleNode> {
    const options = {
      lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 1, enableOfflineQueue: false,
      // Reconnect for ever, never slower than once a second: the group recovers by itself when Redis returns.
      retryStrategy: (times: number) => Math.min(times * 100, 1000),
    };
    // Commands issued in the same tick (many conversations' events and checks at once) go out in one write.
    const cmd = new Redis(url, { ...options, enableAutoPipelining: true, commandTimeout: COMMAND_TIMEOUT_MS }) as ScaleRedis;
    const sub = new Redis(url, options);
    const send = cmd.sendCommand.bind(cmd);
    let node: ScaleNode | null = null;
    cmd.sendCommand = (...args: Parameters<typeof cmd.sendCommand>) => {
      if (node) node.roundTrips++;
      if (metricsEnabled()) m.redisRoundTrips.inc();
      return send(...args);
    };
    for (const c of [cmd, sub]) c.on('error', () => { if (metricsEnabled()) m.redisErrors.inc(); /* reported through health; ioredis reconnects */ });
    try {
      await Promise.all([cmd.connect(), sub.connect()]);
    } catch (err) {
      cmd.disconnect(); sub.disconnect();
      throw new ConfigError(
        `REDIS_URL ${redisWhere(url)} cannot be reached (${(err as Error).message}): scale-out (WORKERS, REDIS_URL) coordinates ` +
        'its processes through Redis or Valkey. Start it, or fix REDIS_URL; to run one process without it, remove REDIS_URL and WORKERS.',
      );
    }
    for (const [name, def] of Object.entries({ ...LEASE_SCRIPTS, ...CLAIM_SCRIPTS, ...LIMIT_SCRIPTS, ...SEAT_SCRIPTS, ...WATCH_SCRIPTS })) cmd.defineCommand(name, def);
    // Its own connection, not awaited: until it is up (or where Redis refuses CLIENT REPLY) publishes are answered.
    const quiet = new QuietPublisher(new Redis(url, options));
    quiet.connect();
    node = new ScaleNode(cmd, sub, quiet, log, leaseMs, prefix);
    await node.listen();
    return node;
  }

  get healthy(): boolean { return this.cmd.status === 'ready' && this.sub.status === 'ready' && !this.stalled; }

  private async listen(): Promise<void> {
    this.sub.on('message', (channel: string, raw: string) => {
      const lines = this.lineHandlers.get(channel);
      if (lines) {
        // Our own lines come back too (already delivered here): dropped unread.
        const from = raw.indexOf('\n');
        if (from < 0 || (from === this.id.length && raw.startsWith(this.id))) return;
        try { lines(raw.slice(from + 1).split('\n')); } catch (err) { this.log.error({ err, channel }, 'scale-out message handler failed'); }
        return;
      }
      // Our own broadcasts come back too (already delivered here): dropped before parsing them.
      if (raw.startsWith(this.ownBroadcast)) return;
      let msg: any;
      try { msg = JSON.parse(raw); } catch { return; }
      if (channel === `${this.prefix}n:${this.id}`) return this.onDirect(msg);
      for (const h of this.handlers.get(channel) ?? []) {
        try { h(msg.m); } catch (err) { this.log.error({ err, channel }, 'scale-out message handler failed'); }
      }
      if (typeof msg.a === 'number') void this.cmd.publish(`${this.prefix}n:${msg.o}`, JSON.stringify({ r: msg.a, ok: true, ack: true })).catch(() => {});
    });
    await this.sub.subscribe(`${this.prefix}ev`, `${this.prefix}inv`, `${this.prefix}int`, `${this.prefix}n:${this.id}`);
    await this.cmd.set(this.membershipPrefix + this.id, '1', 'PX', MEMBERSHIP_MS);
    // A connection made again answered its handshake: what was unanswered on the old one says nothing of Redis now.
    this.cmd.on('ready', () => { this.unansweredSince = null; this.stalled = false; });
    for (const c of [this.cmd, this.sub]) for (const e of ['ready', 'close', 'end', 'reconnecting']) c.on(e, this.check);
    this.heartbeat.start();
  }

  /** Tells the health listeners when `healthy` changed. */
  private readonly check = (): void => {
    if (this.closing) return;
    const up = this.healthy;
    if (up === this.wasHealthy) return;
    this.wasHealthy = up;
    this.log[up ? 'info' : 'error']({ node: this.id }, up ? 'coordination server (REDIS_URL) is back' : 'coordination server (REDIS_URL) lost: conversations owned here go on; new conversations and requests for other processes are refused until it returns');
    for (const fn of this.healthListeners) fn(up);
  };

  /**
   * The beat's own part: renews this process's membership (a lapsed one frees its voice seats: scripts.ts
   * seatTake), which is also the probe of Redis: a frozen Redis keeps its connections open, only an unanswered
   * beat shows it. While one is unanswered no other is sent; unanswered for UNANSWERED_MS, Redis counts as away.
   */
  private beat(): void {
    if (this.closing) return;
    const now = performance.now();
    if (this.unansweredSince !== null && now - this.unansweredSince >= UNANSWERED_MS && !this.stalled) {
      this.stalled = true;
      this.check();
    }
    if (this.beatInFlight || this.cmd.status !== 'ready') { if (this.beatInFlight && metricsEnabled()) m.redisErrors.inc(); return; }
    this.beatInFlight = true;
    this.unansweredSince ??= now;
    this.cmd.set(this.membershipPrefix + this.id, '1', 'PX', MEMBERSHIP_MS).then(() => {
      this.unansweredSince = null;
      this.stalled = false;
    }, () => { if (metricsEnabled()) m.redisErrors.inc(); }).finally(() => { this.beatInFlight = false; this.check(); });
  }

  /** Calls `fn` when Redis goes away (false) and comes back (true). */
  onHealth(fn: (up: boolean) => void): void { this.healthListeners.push(fn); }

  /** Broadcasts to the other processes of the group (topics: ev, inv, int). */
  broadcast(topic: 'ev' | 'inv' | 'int', message: unknown): void {
    if (!this.healthy) return;
    this.cmd.publish(this.prefix + topic, JSON.stringify({ o: this.id, m: message })).catch((err) => this.log.warn({ err, topic }, 'scale-out broadcast failed'));
  }

  /** Broadcasts, and resolves with how many processes heard it (this one included). */
  publishTopic(topic: 'int', message: unknown): Promise<number> {
    return this.cmd.publish(this.prefix + topic, JSON.stringify({ o: this.id, m: message }));
  }

  /**
   * Broadcasts and waits until every other process of the group has handled it (at most `timeoutMs`): a
   * revoked credential is forgotten everywhere before the revoking request is answered. Resolves with how many
   * processes were asked (the group's other members then).
   */
  async broadcastAcked(topic: 'inv' | 'int', message: unknown, timeoutMs = 1000): Promise<number> {
    if (!this.healthy) return 0;
    const id = this.nextRpc++;
    let got = 0;
    let need = Infinity; // known once PUBLISH answers; acks may come in before that
    let finish!: () => void;
    const done = new Promise<void>((resolve) => { finish = resolve; });
    const timer = setTimeout(() => finish(), timeoutMs);
    this.pending.set(id, { resolve: () => { if (++got >= need) finish(); }, reject: () => {}, timer });
    try {
      // `heard` counts this process's own subscription too, which never acknowledges.
      need = (await this.cmd.publish(this.prefix + topic, JSON.stringify({ o: this.id, m: message, a: id }))) - 1;
      if (got >= need) finish();
      await done;
      return need;
    } finally {
      clearTimeout(timer);
      this.pending.delete(id);
    }
  }

  /**
   * A channel of its own (a workspace's events): only processes that subscribe get what is published to it, so
   * a message reaches the processes that need it rather than every process. Resolves once Redis has confirmed
   * the subscription (from then on every publish to it reaches this process).
   */
  async subscribeChannel(name: string, fn: (lines: string[]) => void): Promise<void> {
    const channel = this.prefix + name;
    this.lineHandlers.set(channel, fn);
    await this.sub.subscribe(channel);
  }

  async unsubscribeChannel(name: string): Promise<void> {
    const channel = this.prefix + name;
    this.lineHandlers.delete(channel);
    await this.sub.unsubscribe(channel);
  }

  /**
   * Publishes lines (each without a line break: encoded JSON) to a channel of its own (subscribeChannel), in one
   * message the subscribers split without parsing; resolves with how many processes heard it, this one included.
   */
  publishLines(name: string, lines: string[]): Promise<number> {
    return this.cmd.publish(this.prefix + name, this.linesMessage(lines));
  }

  /**
   * As publishLines, with no answer from Redis (src/scale/quiet-publisher.ts), so this process is not woken up for
   * one; false when that cannot be done now (nothing was sent: use publishLines). Who heard it: `listeners`.
   */
  publishLinesQuietly(name: string, lines: string[]): boolean {
    if (!this.quiet.publish(this.prefix + name, this.linesMessage(lines))) return false;
    this.roundTrips++;
    if (metricsEnabled()) m.redisRoundTrips.inc();
    return true;
  }

  /** A message of lines for a channel of its own: this process's id (its own copy is dropped unread), then the lines. */
  private linesMessage(lines: string[]): string {
    return `${this.id}\n${lines.join('\n')}`;
  }

  /** How many subscriptions a channel of its own has now (what a publish to it reaches, this process's own included). */
  async listeners(name: string): Promise<number> {
    const reply = await this.cmd.pubsub('NUMSUB', this.prefix + name) as [string, number | string];
    return Number(reply[1]);
  }

  on(topic: 'ev' | 'inv' | 'int', fn: Handler): void {
    const list = this.handlers.get(this.prefix + topic) ?? [];
    list.push(fn);
    this.handlers.set(this.prefix + topic, list);
  }

  // --- requests to one process --------------------------------------------------------------------------

  serve(kind: string, fn: (payload: any) => Promise<unknown>): void { this.rpcHandlers.set(kind, fn); }

  /** Runs `kind` on process `node` and returns its answer; NodeGoneError when nobody listens there or it is silent. */
  async call(node: string, kind: string, payload: unknown, timeoutMs = 15_000): Promise<unknown> {
    if (!this.healthy) throw new CoordinationDownError();
    const id = this.nextRpc++;
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => { this.pending.delete(id); reject(new NodeGoneError(`process ${node} did not answer within ${timeoutMs} ms`)); }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
    });
    const heard = await this.cmd.publish(`${this.prefix}n:${node}`, JSON.stringify({ q: id, from: this.id, kind, p: payload }));
    if (heard === 0) {
      const p = this.pending.get(id);
      if (p) { clearTimeout(p.timer); this.pending.delete(id); p.reject(new NodeGoneError(`process ${node} is gone`)); }
    }
    return answer;
  }

  private onDirect(msg: any): void {
    if (typeof msg.r === 'number') {
      const p = this.pending.get(msg.r);
      if (!p) return;
      if (msg.ack) return p.resolve(null); // one more process handled a broadcastAcked
      clearTimeout(p.timer); this.pending.delete(msg.r);
      if (msg.ok) p.resolve(msg.v); else p.reject(Object.assign(new Error(msg.e?.message ?? 'failed on another process'), msg.e?.code ? { code: msg.e.code } : {}));
      return;
    }
    const fn = this.rpcHandlers.get(msg.kind);
    const reply = (body: object) => { void this.cmd.publish(`${this.prefix}n:${msg.from}`, JSON.stringify({ r: msg.q, ...body })).catch(() => {}); };
    if (!fn) return reply({ ok: false, e: { message: `unknown request ${msg.kind}` } });
    fn(msg.p).then(
      (v) => reply({ ok: true, v: v ?? null }),
      (err) => reply({ ok: false, e: { message: (err as Error)?.message ?? String(err), code: (err as { code?: string })?.code } }),
    );
  }

  // --- conversation leases --------------------------------------------------------------------------------

  /**
   * Takes the lease if free (or renews our own); otherwise names the owner. Lapse is judged by Redis's clock.
   * Taken: this process hears from then on which processes open a widget on it (watchers).
   */
  async acquire(conversationId: string): Promise<{ mine: boolean; token: number; owner: string }> {
    const [mine, token, owner, watchers] = await this.cmd.leaseAcquire(`${this.prefix}lease:${conversationId}`, `${this.prefix}fence`, `${this.prefix}leaselast:${conversationId}`, `${this.prefix}watch:${conversationId}`, this.id, this.leaseMs);
    if (mine === 1) this.watchers.ownedNow(conversationId, watchers);
    return { mine: mine === 1, token: Number(token), owner };
  }

  /** After a lease was handed to this process (transfer): the processes with a widget open on it, from then on. */
  async handedOver(conversationId: string): Promise<void> {
    this.watchers.ownedNow(conversationId, await this.cmd.smembers(`${this.prefix}watch:${conversationId}`));
  }

  /** Which process holds the conversation's lease now (null: nobody), without taking it. */
  async peekOwner(conversationId: string): Promise<string | null> {
    const v = await this.cmd.get(`${this.prefix}lease:${conversationId}`);
    return v ? v.slice(0, v.lastIndexOf('|')) : null;
  }

  /** Whether process `node` is in the group now (its membership, renewed every second, has not lapsed). */
  async isMember(node: string): Promise<boolean> {
    return (await this.cmd.exists(this.membershipPrefix + node)) === 1;
  }

  /** The fencing check made before a write: true while this process still holds the lease with this token. */
  async holds(conversationId: string, token: number): Promise<boolean> {
    return (await this.cmd.leaseCheck(`${this.prefix}lease:${conversationId}`, `${this.id}|${token}`)) === 1;
  }

  /** Renews leases in one round trip (taking back lapsed ones nobody took since); returns the ids lost to another process. */
  async renew(leases: Map<string, number>): Promise<string[]> {
    if (!leases.size) return [];
    const ids = [...leases.keys()];
    const kept = await this.cmd.leaseRenew(2 * ids.length, ...ids.map((id) => `${this.prefix}lease:${id}`), ...ids.map((id) => `${this.prefix}leaselast:${id}`), this.leaseMs, ...ids.map((id) => `${this.id}|${leases.get(id)}`));
    return ids.filter((_, i) => kept[i] !== 1);
  }

  /** Passes a lease this process holds (with `token`) to process `to`; its new fencing token, or null if lost. */
  async transfer(conversationId: string, token: number, to: string): Promise<number | null> {
    const next = await this.cmd.leaseTransfer(`${this.prefix}lease:${conversationId}`, `${this.prefix}fence`, `${this.prefix}leaselast:${conversationId}`, `${this.id}|${token}`, to, this.leaseMs);
    return next < 0 ? null : Number(next);
  }

  async release(conversationId: string, token: number): Promise<void> {
    this.watchers.dropped(conversationId);
    await this.cmd.leaseRelease(`${this.prefix}lease:${conversationId}`, `${this.id}|${token}`);
  }

  // --- shared counters and claims -------------------------------------------------------------------------

  /** A sliding-window hit counted across the group: 0 when allowed (and counted), else milliseconds to wait. */
  async hit(key: string, windowMs: number, limit: number, now: number): Promise<number> {
    return this.cmd.slidingHit(`${this.prefix}rl:${key}`, now, windowMs, limit, `${now}-${this.id}-${this.nextRpc++}`);
  }

  /** One process of the group gets true for `key` until `ms` pass (durable work claimed once). */
  async claim(key: string, ms: number): Promise<boolean> {
    return (await this.cmd.set(`${this.prefix}claim:${key}`, this.id, 'PX', ms, 'NX')) === 'OK';
  }

  /** Extends a claim this process holds; false when it lapsed (another process may have taken the work). */
  async renewClaim(key: string, ms: number): Promise<boolean> {
    return (await this.cmd.claimRenew(`${this.prefix}claim:${key}`, this.id, ms)) === 1;
  }

  /** Takes (or keeps) a limit key's home for `ms` (src/scale/limits.ts): null when this process holds it, else the process that does. */
  async claimHome(key: string, ms: number): Promise<string | null> {
    const holder = await this.cmd.homeClaim(`${this.prefix}home:${key}`, this.id, ms);
    return holder === '' ? null : holder;
  }

  /** Extends a limit key's home this process holds; false when it lapsed (another process may hold it now). */
  async renewHome(key: string, ms: number): Promise<boolean> {
    return (await this.cmd.claimRenew(`${this.prefix}home:${key}`, this.id, ms)) === 1;
  }

  async releaseClaim(key: string): Promise<void> {
    await this.cmd.claimRelease(`${this.prefix}claim:${key}`, this.id);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.watchers.close();
    this.heartbeat.stop();
    for (const p of this.pending.values()) { clearTimeout(p.timer); p.reject(new NodeGoneError('process stopping')); }
    this.pending.clear();
    // QUIT when Redis answers; disconnect in any case, so a process stopped while Redis is away does not stay
    // alive on the clients' reconnection timers.
    await Promise.race([Promise.allSettled([this.sub.quit(), this.cmd.quit()]), new Promise((r) => setTimeout(r, 500))]);
    this.sub.disconnect(); this.cmd.disconnect(); this.quiet.close();
  }
}
