import type { AppContext } from '../app/context.js';
import type { ActorRegistry } from '../../actors/runtime/index.js';
import { m, metricsEnabled } from '../metrics/registry.js';
import type { Readiness } from '../app/readiness.js';
import { CoordinationDownError, NodeGoneError, type ScaleNode } from './node.js';

/** The current owner stopped writing: its lease lapsed and another process holds the conversation now. */
export class LeaseLostError extends Error {
  readonly code = 'lease_lost';
  constructor(conversationId: string) { super(`conversation ${conversationId} is owned by another process now; this one stops writing to it`); }
}

/** The part of a conversation actor the router stops when its lease is lost or handed over. */
interface Stoppable {
  stop(o: { drain: boolean }): Promise<void>;
  s?: { reply?: { controller: AbortController } | null; voice?: { end(reason: 'visitor'): void } | null };
}

/** The actor's own results (they carry live objects and errors): they run where they were made, never elsewhere. */
const LOCAL_ONLY = new Set(['replyDone', 'summaryDone']);
/**
 * A voice session attaching itself (its port is a live object, and audio must never cross processes): the
 * session's process takes the conversation over from its owner (handOver) instead of forwarding. The
 * session's later turns and usage are plain data and are forwarded like any message if the lease moves again.
 */
const TAKES_OVER = new Set(['voiceAttach']);
/** How long an owner may take to hand a conversation over: its running reply is finished and stored first. */
const HANDOVER_TIMEOUT_MS = 60_000;
/**
 * After Redis comes back, how long a process waits before taking a free lease: longer than the processes'
 * reconnections are apart (each retries at least once a second), so every owner has taken its leases back.
 */
const RECLAIM_GRACE_MS = 2000;
const MOVED = Symbol('moved');
const movedError = (id: string) => Object.assign(new Error(`conversation ${id} moved to another process`), { code: 'moved' });

/**
 * One owner per conversation across the group. A message for a conversation runs where its lease is: here
 * when this process holds it or can take it (free, or lapsed after its owner died), else it is sent to the
 * owner and the answer comes back. Leases are renewed in one call every third of their life, in the heartbeat; a lease
 * found lost stops the local actor (a running reply is aborted), and every stored write of the actor checks
 * the lease first (fence), so a process that was paused past its lease never writes over the new owner.
 * The check is local while the last grant or renewal is surely still in force (nobody else can hold the lease
 * before it lapses in Redis), and asks Redis once that time has passed (a pause, a late renewal).
 */
export class ConversationRouter {
  /** Leases held here: conversation id -> fencing token. */
  readonly held = new Map<string, number>();
  /**
   * Until when (performance.now(), which a wall-clock step does not move) each held lease is surely still ours:
   * the time the last grant or renewal was asked + LEASE_MS - margin.
   */
  private validUntil = new Map<string, number>();
  /** Conversations being handed over to another process: messages for them wait, then go to the new owner. */
  private leaving = new Map<string, Promise<unknown>>();
  private readonly stopRenewing: () => void;
  /** When Redis last came back (performance.now()): free leases are not taken for RECLAIM_GRACE_MS after. */
  private backAt = -Infinity;
  /** The renewal running now (a fence past its local validity waits for it rather than asking Redis again). */
  private renewing: Promise<void> | null = null;

  constructor(
    private readonly app: AppContext,
    private readonly node: ScaleNode,
    private readonly registry: ActorRegistry<any>,
    private readonly readiness: Readiness,
  ) {
    // Run only by the owner the sender saw (same token), never passed on: a request that reaches a process that
    // lost the lease meanwhile is answered "moved" and the sender looks the owner up again, so it runs once.
    node.serve('conv', async (p: { id: string; msg: any; ask: boolean; token: number; from?: string }) => {
      if (this.held.get(p.id) !== p.token || this.leaving.has(p.id)) throw movedError(p.id);
      // Stopping gracefully (a restart): the conversation goes to the process that asked, which serves this
      // message and the next ones; its running reply is finished and stored here first.
      if (p.from && this.readiness.isDraining) {
        await this.handOver(p.id, p.token, p.from, 'this process is stopping').catch(() => {});
        throw movedError(p.id);
      }
      return this.local(p.id, p.msg, p.ask);
    });
    node.serve('handover', (p: { id: string; token: number; to: string }) => this.handOver(p.id, p.token, p.to, 'its voice session runs there'));
    // Redis back after a loss may have lost its keys (a restart without persistence, a failover), or the leases
    // lapsed meanwhile: a renewal at once takes back those nobody else took (and stops those another process
    // did); until it answers, each fence waits for it.
    node.onHealth((up) => { if (up) { this.backAt = performance.now(); this.validUntil.clear(); void this.renew(); } });
    // With the heartbeat (src/scale/heartbeat.ts): the renewal goes in the same write as the membership.
    this.stopRenewing = node.heartbeat.every(Math.floor(node.leaseMs / 3), () => void this.renew());
  }

  /** Whether messages for this conversation run here without a round trip. */
  holds(id: string): boolean { return this.held.has(id) && !this.leaving.has(id); }

  /** Runs the message where the conversation is owned; `ask` waits for and returns the actor's answer. */
  async route(id: string, msg: { type: string }, ask: boolean): Promise<unknown> {
    const deadline = Date.now() + this.node.leaseMs + 5000;
    for (;;) {
      const leaving = this.leaving.get(id);
      if (leaving) { await leaving; continue; }
      if (this.held.has(id)) return this.local(id, msg, ask);
      if (!this.node.healthy) throw new CoordinationDownError();
      // Just after Redis came back (empty, or with leases lapsed meanwhile) every process takes back what it holds
      // (renew); a lease taken here before its owner did so would move a conversation the owner still serves.
      const grace = this.backAt + RECLAIM_GRACE_MS - performance.now();
      if (grace > 0) await new Promise((r) => setTimeout(r, grace));
      const asked = performance.now();
      const lease = await this.node.acquire(id);
      if (lease.mine) {
        if (metricsEnabled()) m.ownershipMoves.inc({ how: 'taken' });
        this.held.set(id, lease.token); this.granted([id], asked); return this.local(id, msg, ask);
      }
      if (LOCAL_ONLY.has(msg.type)) throw new Error(`conversation ${id} is owned by another process now; ${msg.type} is dropped`);
      if (Date.now() > deadline) throw new Error(`conversation ${id} could not be reached on its owner process; try again`);
      try {
        if (TAKES_OVER.has(msg.type)) {
          const asked = performance.now();
          const token = await this.node.call(lease.owner, 'handover', { id, token: lease.token, to: this.node.id }, HANDOVER_TIMEOUT_MS) as number;
          await this.node.handedOver(id).catch(() => this.node.watchers.ownedNow(id, []));
          this.held.set(id, token);
          this.granted([id], asked);
          continue;
        }
        const answer = await this.callOwner(id, lease.owner, { id, msg, ask, token: lease.token, from: this.node.id });
        if (metricsEnabled()) m.forwarded.inc({ outcome: answer === MOVED ? 'moved' : 'ok' });
        if (answer !== MOVED) return answer;
      } catch (err) {
        if (metricsEnabled()) m.forwarded.inc({ outcome: err instanceof NodeGoneError ? 'gone' : (err as { code?: string }).code === 'moved' ? 'moved' : 'error' });
        // The owner is gone (killed, cut off): its lease lapses within LEASE_MS, then the next try takes it here.
        // Or it had just lost the lease (passivated, paused): look the owner up again.
        if (!(err instanceof NodeGoneError) && (err as { code?: string }).code !== 'moved') throw err;
        await new Promise((r) => setTimeout(r, (err as { code?: string }).code === 'moved' ? 20 : 200));
      }
    }
  }

  /**
   * Sends the message to the owner and waits for its answer while the owner keeps its lease. An owner that
   * stops renewing (paused, cut off from Redis) without dying loses it: then MOVED, and the caller retries with
   * the new owner (or here). If the old owner wakes and runs the message after all, its writes fail the fence.
   */
  private async callOwner(id: string, owner: string, payload: unknown): Promise<unknown> {
    let watching = true;
    const answer = this.node.call(owner, 'conv', payload);
    const moved = (async () => {
      while (watching) {
        await new Promise((r) => setTimeout(r, Math.max(100, this.node.leaseMs / 2)));
        if (!watching || !this.node.healthy) continue;
        const now = await this.node.peekOwner(id).catch(() => owner);
        if (now !== owner) return MOVED;
      }
      return MOVED;
    })();
    try { return await Promise.race([answer, moved]); } finally { watching = false; answer.catch(() => {}); }
  }

  /**
   * Run by the owner when another process asks for the conversation (a voice session starting there) or when a
   * message for it is forwarded here while this process stops: messages for it wait here; the actor ends its
   * voice session (the new one replaces it), finishes what its mailbox holds and its running reply (stored here,
   * before anything of the new owner), and stops; then the lease passes to `to` with a new fencing token in one
   * step, so the conversation is never unowned and never has two writers.
   */
  private handOver(id: string, token: number, to: string, why: string): Promise<number> {
    if (this.held.get(id) !== token || this.leaving.has(id)) return Promise.reject(movedError(id));
    const done = (async () => {
      const actor = this.registry.peek(id) as Stoppable | undefined;
      if (actor) {
        actor.s?.voice?.end('visitor');
        await actor.stop({ drain: true });
      }
      const next = await this.node.transfer(id, token, to);
      this.node.watchers.dropped(id);
      this.held.delete(id);
      this.validUntil.delete(id);
      if (next === null) throw movedError(id); // lost meanwhile (paused past the lease): the asker looks again
      if (metricsEnabled()) m.ownershipMoves.inc({ how: 'handed_over' });
      this.app.log.info({ conversationId: id, to, why }, 'conversation handed over to another process');
      return next;
    })();
    const settled = done.then(() => {}, () => {}).finally(() => this.leaving.delete(id));
    this.leaving.set(id, settled);
    return done;
  }

  private local(id: string, msg: { type: string }, ask: boolean): unknown {
    const actor = this.registry.get(id);
    if (ask) return actor.ask(msg);
    actor.send(msg);
    return undefined;
  }

  private granted(ids: string[], from: number): void {
    // A margin for the time the grant took to come back and for the difference between clocks' rates.
    const until = from + this.node.leaseMs - Math.min(1000, this.node.leaseMs / 5);
    for (const id of ids) this.validUntil.set(id, until);
  }

  /**
   * The fencing check before a stored write: throws LeaseLostError when this process no longer owns it. A lease
   * granted or renewed less than LEASE_MS (less a margin) ago is still ours: nobody else can have taken it yet,
   * so the check needs no round trip then (the renewals every third of the lease keep it so while this process
   * runs); past that time (this process was paused, or renewals failed) Redis is asked, and while Redis cannot
   * be asked the write is refused.
   */
  async fence(id: string): Promise<void> {
    const token = this.held.get(id);
    if (token === undefined) throw new LeaseLostError(id);
    if (performance.now() < (this.validUntil.get(id) ?? 0)) return;
    // Redis away: nobody can take a lease from it either, so this process goes on serving what it holds (a
    // process cut off alone from a Redis the others still reach is the exception: docs/decisions.md).
    if (!this.node.healthy) return;
    if (this.renewing) {
      await this.renewing;
      if (!this.held.has(id)) throw new LeaseLostError(id);
      if (performance.now() < (this.validUntil.get(id) ?? 0)) return;
    }
    let holds: boolean;
    try {
      holds = await this.node.holds(id, token);
    } catch {
      return; // Redis did not answer (it went away just now): as above
    }
    if (!holds) {
      this.lost(id);
      throw new LeaseLostError(id);
    }
  }

  /** Renews held leases; drops (and releases) those whose actor was passivated, stops those found lost. */
  private renew(): Promise<void> {
    if (!this.node.healthy) return Promise.resolve();
    this.renewing ??= this.renewNow().finally(() => { this.renewing = null; });
    return this.renewing;
  }

  private async renewNow(): Promise<void> {
    try {
      // Issued in this turn of the event loop (no await before the renewal): one write with the rest of the beat.
      for (const [id, token] of this.held) {
        if (this.registry.peek(id)) continue;
        this.held.delete(id);
        this.validUntil.delete(id);
        this.node.release(id, token).catch(() => { /* it lapses by itself */ });
      }
      const asked = performance.now();
      const lost = await this.node.renew(this.held);
      for (const id of lost) this.lost(id);
      this.granted([...this.held.keys()], asked);
    } catch (err) {
      this.app.log.warn({ err }, 'renewing conversation leases failed');
    }
  }

  private lost(id: string): void {
    this.validUntil.delete(id);
    if (!this.held.delete(id)) return;
    this.node.watchers.dropped(id);
    if (metricsEnabled()) m.ownershipMoves.inc({ how: 'lost' });
    this.app.log.warn({ conversationId: id }, 'conversation lease lost: another process owns it now');
    const actor = this.registry.peek(id) as Stoppable | undefined;
    if (!actor) return;
    actor.s?.reply?.controller.abort(new LeaseLostError(id));
    void actor.stop({ drain: false }).catch(() => {});
  }

  async close(): Promise<void> {
    this.stopRenewing();
    for (const [id, token] of this.held) await this.node.release(id, token).catch(() => {});
    this.held.clear();
  }
}
