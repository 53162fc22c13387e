/**
 * Webhook delivery: turns stored bus events into durable delivery records (one per subscribed endpoint, switched
 * on or off) and sends them. An event with subscribers is stored marked `fanOutPending` (in the same write as the event);
 * the mark is cleared once its delivery records are stored, and start-up finishes any marked event left by a
 * crash. Those records have ids derived from event and endpoint, so finishing twice makes no duplicate.
 * Records carry nextAttemptAt; a scheduler driven by app.clock picks due ones, so a restart (or a kill -9)
 * resumes from the store. A try cut off by a crash is sent again at start-up: at-least-once, which the
 * spec allows (receivers de-duplicate on id).
 *
 * No event is given up untried. A delivery waits, "parked" (pending state, nextAttemptAt null), while its
 * endpoint is switched off, or while the endpoint has HOLD_AFTER_FAILURES failures in a row and a retry pending
 * (then only retries are tried, on their schedule, so failures are counted per real try). Parked deliveries are
 * released (due at once) when the endpoint is switched on or one of its tries gets through.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../app/context.js';
import type { TimerHandle } from '../../kernel/clock.js';
import type { GuardedClient } from '../../security/guarded-client.js';
import { openSecret } from '../../security/secret-box.js';
import { newId } from '../../store/ids.js';
import { DuplicateKeyError, type Collection } from '../../store/types.js';
import { EVENT_RETENTION_MS, type EventRecord } from '../../app/event-bus.js';
import {
  DELIVERY_LOG_SIZE, DELIVERY_TIMEOUT_MS, HOLD_AFTER_FAILURES, MAINTENANCE_INTERVAL_MS, MAX_REDIRECTS, MAX_TRIES,
  RESPONSE_SNIPPET_BYTES, RETRY_DELAYS_MS, SWITCH_OFF_AFTER_FAILURES, isDeliverable,
} from './constants.js';
import {
  FINISHED_STATES, PENDING_STATES, deliveriesCollection, endpointsCollection,
  type DeliveryRecord, type EndpointRecord,
} from './records.js';
import { webhookBody, webhookHeaders } from './signature.js';
import { DeliverySlots, DEFAULT_SLOT_LIMITS, type SlotLimits } from './slots.js';
import { recordWebhookAttempt } from '../../metrics/record.js';

export interface DispatcherOptions {
  slots?: Partial<SlotLimits>;
}

/** Due order: earliest nextAttemptAt first, then oldest record (served by the collection's queue index). */
const QUEUE_ORDER: Array<[string, 1 | -1]> = [['nextAttemptAt', 1], ['_id', 1]];

/** Workspaces whose endpoints are kept in memory (least recently loaded dropped first beyond this). */
const ENDPOINT_CACHE_SIZE = 10_000;
/** Bodies of events just fanned out, kept for their first tries (oldest dropped first beyond this). */
const RECENT_BODIES = 1000;
/** Marked events read per page when finishing fan-outs cut off by a crash. */
const RECOVERY_PAGE = 500;
/** What enqueueing needs of an endpoint (secret and URL are read fresh at each try). */
type EndpointTarget = Pick<EndpointRecord, '_id' | 'workspaceId' | 'events'>;

type Outcome = { statusCode: number | null; response: string | null; error: string | null; durationMs: number };

export class WebhookDispatcher {
  readonly endpoints: Collection<EndpointRecord>;
  readonly deliveries: Collection<DeliveryRecord>;
  private readonly slots: DeliverySlots;
  private tasks = new Set<Promise<unknown>>();
  private pumping = false;
  private again = false;
  private running = false;
  private timer: TimerHandle | null = null;
  private maintenanceTimer: TimerHandle | null = null;
  private shutdown = new AbortController();
  private unsubscribe: (() => void) | null = null;
  /**
   * Endpoints by workspace (switched off ones too: their events are kept for them), so a stored event of a
   * workspace without webhooks costs no query. Every change to endpoints goes through invalidate();
   * `cacheVersion` keeps a load that raced a change from being kept.
   */
  private byWorkspace = new Map<string, EndpointTarget[]>();
  private cacheVersion = 0;
  /**
   * The webhook body of each event fanned out lately, by event id: an event never changes once stored, so its
   * first tries need not read it back from the store. Older ones (retries, redeliveries) are read.
   */
  private recentBodies = new Map<string, string>();
  /** Endpoints whose log is being pruned, and whether another finish asked for a prune meanwhile. */
  private pruning = new Map<string, boolean>();

  constructor(private app: AppContext, private client: GuardedClient, opts: DispatcherOptions = {}) {
    this.endpoints = endpointsCollection(app.store);
    this.deliveries = deliveriesCollection(app.store);
    this.slots = new DeliverySlots({ ...DEFAULT_SLOT_LIMITS, ...opts.slots });
    // Every try in flight listens on the shutdown signal: up to the process's slots, not a leak past Node's 10.
    setMaxListeners(this.slots.limits.total + 1, this.shutdown.signal);
  }

  /** Subscribes to the bus and sends whatever is already due (deliveries left over from the last run). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.app.events.subscribe((event) => this.onEvent(event));
    this.app.events.setPendingCheck((event) => this.hasSubscribers(event));
    this.track(this.recover());
    this.kick();
    this.maintain();
  }

  /** Stops timers and cuts off tries under way; those stay due in the store and are sent after a restart. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.app.events.setPendingCheck(null);
    this.byWorkspace.clear(); // a later start reads the store afresh
    this.cacheVersion += 1;
    if (this.timer) this.app.clock.clearTimeout(this.timer);
    if (this.maintenanceTimer) this.app.clock.clearTimeout(this.maintenanceTimer);
    this.timer = this.maintenanceTimer = null;
    this.shutdown.abort();
    await this.settled();
  }

  /** Resolves once no enqueueing, scheduling or try is under way (tests wait on it after advancing the clock). */
  async settled(): Promise<void> {
    while (this.tasks.size || this.slots.size) {
      await Promise.allSettled([...this.tasks, ...this.slots.running()]);
    }
  }

  /** Queues one delivery of a stored event to one endpoint (test pings and redeliveries), sent at once. */
  async queue(endpoint: EndpointRecord, event: Pick<EventRecord, '_id' | 'type'>, opts: { manual: boolean; redeliveryOf?: string | null }): Promise<DeliveryRecord> {
    const record = this.newDelivery(endpoint, event, opts.manual, opts.redeliveryOf ?? null);
    await this.deliveries.insertOne(record);
    this.kick();
    return record;
  }

  /** Forgets the cached endpoints of a workspace; call after any change to its endpoints. */
  invalidate(workspaceId: string, fromGroup = false): void {
    this.byWorkspace.delete(workspaceId);
    this.cacheVersion += 1;
    if (!fromGroup) this.app.scale?.broadcast('inv', { k: 'webhooks', workspaceId });
  }

  /**
   * Scale-out: every process pumps the shared queue, so a try is claimed first: its due time is moved past the
   * longest a try can take, only if nobody moved it since it was read. A claimer that dies leaves it due again then.
   */
  private async claim(d: DeliveryRecord): Promise<boolean> {
    const until = this.app.clock.now() + DELIVERY_TIMEOUT_MS * (MAX_REDIRECTS + 1) + 30_000;
    return !!(await this.deliveries.updateOne({ workspaceId: d.workspaceId, _id: d._id, nextAttemptAt: d.nextAttemptAt }, { $set: { nextAttemptAt: until } }));
  }

  /**
   * Releases an endpoint's parked deliveries (due at once): called when it is switched on, and when one of its
   * tries gets through after failures.
   */
  async release(workspaceId: string, endpointId: string): Promise<void> {
    const released = await this.deliveries.updateMany(
      { workspaceId, endpointId, nextAttemptAt: null, state: { $in: PENDING_STATES } },
      { $set: { nextAttemptAt: this.app.clock.now() } },
    );
    if (released) this.kick();
  }

  private async workspaceEndpoints(workspaceId: string): Promise<EndpointTarget[]> {
    const hit = this.byWorkspace.get(workspaceId);
    if (hit) return hit;
    const version = this.cacheVersion;
    const rows = await this.endpoints.find({ workspaceId });
    const list = rows.map((e) => ({ _id: e._id, workspaceId: e.workspaceId, events: e.events }));
    if (version === this.cacheVersion) {
      if (this.byWorkspace.size >= ENDPOINT_CACHE_SIZE) this.byWorkspace.delete(this.byWorkspace.keys().next().value!);
      this.byWorkspace.set(workspaceId, list);
    }
    return list;
  }

  /** Asked by the bus before it stores an event: whether the event must be marked for fan-out. */
  private async hasSubscribers(event: EventRecord): Promise<boolean> {
    return isDeliverable(event.type, event.data) && (await this.subscribers(event)).length > 0;
  }

  /**
   * The endpoints that take this event's type, switched on or off: a switched-off endpoint's deliveries wait for
   * it (parked at their first turn) and go when it is switched on, within the week events are kept.
   */
  private async subscribers(event: EventRecord): Promise<EndpointTarget[]> {
    return (await this.workspaceEndpoints(event.workspaceId)).filter((e) => e.events.includes(event.type));
  }

  private onEvent(event: EventRecord): void {
    if (!this.running || !event.fanOutPending) return;
    this.track(this.enqueue(event));
  }

  /** Stores the delivery records of a marked event, then clears its mark. */
  private async enqueue(event: EventRecord): Promise<void> {
    const targets = await this.subscribers(event);
    // Durable before anything is sent: the records are stored here, and only the pump (reading the store) sends.
    if (targets.length) {
      if (this.recentBodies.size >= RECENT_BODIES) this.recentBodies.delete(this.recentBodies.keys().next().value!);
      this.recentBodies.set(event._id, webhookBody(event));
      await this.insertAll(targets.map((e) => this.newDelivery(e, event, false, null)));
    }
    await this.app.events.collection.updateOne({ workspaceId: event.workspaceId, _id: event._id }, { $unset: ['fanOutPending'] });
    if (targets.length) this.kick();
  }

  /** At start-up: events stored marked but whose delivery records a crash kept from being stored. */
  private async recover(): Promise<void> {
    let after = '';
    for (;;) {
      const page = await this.app.events.collection.find(
        { fanOutPending: true, _id: { $gt: after } },
        { crossWorkspace: true, sort: [['_id', 1]], limit: RECOVERY_PAGE },
      );
      for (const event of page) if (this.running) await this.enqueue(event);
      if (page.length < RECOVERY_PAGE || !this.running) return;
      after = page[page.length - 1]._id;
    }
  }

  /** Inserts delivery records, skipping those already stored (a fan-out finished twice). */
  private async insertAll(records: DeliveryRecord[]): Promise<void> {
    try {
      await this.deliveries.insertMany(records);
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      for (const r of records) {
        try { await this.deliveries.insertOne(r); } catch (e) { if (!(e instanceof DuplicateKeyError)) throw e; }
      }
    }
  }

  /**
   * Automatic deliveries get an id derived from event and endpoint (still sorting by time, as the event id
   * does); test pings and redeliveries get fresh ids.
   */
  private newDelivery(endpoint: EndpointTarget, event: Pick<EventRecord, '_id' | 'type'>, manual: boolean, redeliveryOf: string | null): DeliveryRecord {
    const now = this.app.clock.now();
    const body = (id: string) => id.slice(id.indexOf('_') + 1);
    return {
      _id: manual ? newId('whd', now) : `whd_${body(event._id)}${body(endpoint._id)}`, workspaceId: endpoint.workspaceId, endpointId: endpoint._id, eventId: event._id, eventType: event.type,
      state: 'queued', attempts: 0, nextAttemptAt: now, statusCode: null, response: null, error: null,
      manual, redeliveryOf, history: [], createdAt: now, lastAttemptAt: null, finishedAt: null,
    };
  }

  private track<T>(p: Promise<T>): void {
    const tracked = p.then(
      () => undefined,
      (err) => this.app.log.error({ err }, 'webhook scheduling failed'),
    );
    this.tasks.add(tracked);
    void tracked.finally(() => this.tasks.delete(tracked));
  }

  private kick(): void {
    if (this.running) this.track(this.pump());
  }

  /**
   * Fills free slots with due deliveries, fairly (slots.ts): endpoints with nothing in flight first, then those
   * below their share; full workspaces and endpoints are left out of the query, so a backlog cannot hide others.
   * Then sets one timer for the next due time.
   */
  private async pump(): Promise<void> {
    if (this.pumping) { this.again = true; return; }
    this.pumping = true;
    try {
      do {
        this.again = false;
        while (this.running && this.slots.free > 0 && await this.fill());
      } while (this.again && this.running);
      // Every slot taken: a finishing try pumps again, so the next due time is looked up only when one is free.
      if (this.slots.free > 0) await this.arm();
    } finally {
      this.pumping = false;
      if (this.again) this.kick();
    }
  }

  /** One pass of both rounds; says whether another pass may find more (a query came back full and something went). */
  private async fill(): Promise<boolean> {
    let more = false;
    let launched = 0;
    for (const round of this.slots.rounds()) {
      const free = this.slots.free;
      if (free <= 0 || !this.running) break;
      const busy = this.slots.ids();
      const fullWorkspaces = this.slots.fullWorkspaces();
      const due = await this.deliveries.find({
        nextAttemptAt: { $lte: this.app.clock.now() },
        ...(busy.length ? { _id: { $nin: busy } } : {}),
        ...(round.excludeEndpoints.length ? { endpointId: { $nin: round.excludeEndpoints } } : {}),
        ...(fullWorkspaces.length ? { workspaceId: { $nin: fullWorkspaces } } : {}),
      }, { crossWorkspace: true, sort: QUEUE_ORDER, limit: free });
      if (due.length === free) more = true;
      for (const d of due) {
        if (!this.running || !this.slots.fits(d, round.upTo)) continue;
        this.launch(d);
        launched++;
      }
    }
    return more && launched > 0;
  }

  /** A timer for the next delivery due later (one due now waits for a slot: a finishing try pumps again). */
  private async arm(): Promise<void> {
    if (!this.running) return;
    const now = this.app.clock.now();
    const next = await this.deliveries.findOne({ nextAttemptAt: { $gt: now } }, { crossWorkspace: true, sort: QUEUE_ORDER });
    if (this.timer) { this.app.clock.clearTimeout(this.timer); this.timer = null; }
    if (!next || next.nextAttemptAt === null || !this.running) return;
    this.timer = this.app.clock.setTimeout(() => { this.timer = null; this.kick(); }, next.nextAttemptAt - this.app.clock.now());
  }

  private launch(d: DeliveryRecord): void {
    const p = this.attempt(d)
      .catch((err) => this.app.log.error({ err, deliveryId: d._id }, 'webhook delivery failed unexpectedly'))
      .finally(() => { this.slots.release(d._id); this.kick(); });
    this.slots.take(d._id, d, p);
  }

  private async attempt(d: DeliveryRecord): Promise<void> {
    if (this.app.scale && !(await this.claim(d))) return;
    // Both read at once: the try waits for one store round trip, not two (none for a body just fanned out).
    const recent = this.recentBodies.get(d.eventId);
    const [endpoint, event] = await Promise.all([
      this.endpoints.findById(d.workspaceId, d.endpointId),
      recent === undefined ? this.app.events.collection.findById(d.workspaceId, d.eventId) : null,
    ]);
    if (!endpoint) { await this.deliveries.deleteOne({ workspaceId: d.workspaceId, _id: d._id }); return; }
    if (!d.manual && await this.mustWait(endpoint, d)) return this.park(d);
    if (recent === undefined && !event) return this.giveUp(d, 'not sent: the event is no longer stored (events are kept a week)');
    const secret = openSecret(endpoint.secretSealed, this.app.secretKey, endpoint._id);
    const body = recent ?? webhookBody(event!);
    const started = performance.now();
    const outcome: Outcome = { statusCode: null, response: null, error: null, durationMs: 0 };
    try {
      const res = await this.client.request(endpoint.url, {
        method: 'POST', headers: webhookHeaders({ _id: d.eventId, type: d.eventType }, secret, this.app.clock.now(), body), body,
        timeoutMs: DELIVERY_TIMEOUT_MS, maxRedirects: MAX_REDIRECTS, redirectPolicy: 'webhook',
        maxResponseBytes: RESPONSE_SNIPPET_BYTES, signal: this.shutdown.signal,
      });
      outcome.statusCode = res.status;
      outcome.response = res.body.toString('utf8');
      if (res.status < 200 || res.status > 299) outcome.error = `the receiver answered ${res.status}`;
    } catch (err) {
      // Cut off by shutdown: leave the record due so the next start sends it.
      if (this.shutdown.signal.aborted) return;
      outcome.error = err instanceof Error ? err.message : String(err);
    }
    outcome.durationMs = Math.round(performance.now() - started);
    await this.record(d, endpoint, outcome);
  }

  private async record(d: DeliveryRecord, endpoint: EndpointRecord, o: Outcome): Promise<void> {
    const now = this.app.clock.now();
    const ok = o.error === null;
    const attempts = d.attempts + 1;
    const finished = ok || attempts >= MAX_TRIES;
    recordWebhookAttempt(ok ? 'delivered' : finished ? 'failed' : 'retrying', o.durationMs);
    await this.deliveries.updateOne({ workspaceId: d.workspaceId, _id: d._id }, {
      $set: {
        attempts, statusCode: o.statusCode, response: o.response, error: o.error, lastAttemptAt: now,
        state: ok ? 'delivered' : finished ? 'failed' : 'retrying',
        nextAttemptAt: finished ? null : now + RETRY_DELAYS_MS[attempts - 1],
        finishedAt: finished ? now : null,
      },
      $push: { history: { value: { at: now, statusCode: o.statusCode, error: o.error, durationMs: o.durationMs }, slice: MAX_TRIES * 2 } },
    });
    // The try is recorded: its slot is free for the next one while the endpoint's count and the log are kept up.
    this.track(this.afterTry(d, endpoint, ok, finished, now));
  }

  /** After a recorded try: the endpoint's run of failures (switched off at 20) and the log's length. */
  private async afterTry(d: DeliveryRecord, endpoint: EndpointRecord, ok: boolean, finished: boolean, now: number): Promise<void> {
    const scope = { workspaceId: endpoint.workspaceId, _id: endpoint._id };
    if (ok) {
      // Read with the try: an endpoint without failures (the usual case) costs no write.
      if (endpoint.consecutiveFailures !== 0) {
        const after = await this.endpoints.updateOne({ ...scope, consecutiveFailures: { $ne: 0 } }, { $set: { consecutiveFailures: 0 } });
        // It got through: what waited behind its retries goes now.
        if (after?.active) await this.release(endpoint.workspaceId, endpoint._id);
      }
    } else {
      const after = await this.endpoints.updateOne(scope, { $inc: { consecutiveFailures: 1 } });
      if (after?.active && after.consecutiveFailures >= SWITCH_OFF_AFTER_FAILURES) {
        await this.endpoints.updateOne({ ...scope, active: true }, { $set: { active: false, disabledAt: now, updatedAt: now } });
        this.invalidate(endpoint.workspaceId);
        this.app.log.warn({ endpointId: endpoint._id, workspaceId: endpoint.workspaceId }, 'webhook endpoint switched off after 20 failures in a row');
      } else if (finished && after?.active && !(await this.hasRetryPending(after))) {
        // Its last retry was given up: what waited behind it is tried now (and is held again if that fails).
        await this.release(endpoint.workspaceId, endpoint._id);
      }
    }
    if (finished) this.pruneSoon(d.workspaceId, d.endpointId);
  }

  /**
   * Whether an automatic delivery must wait instead of being tried now: its endpoint is switched off, or the
   * endpoint is failing (HOLD_AFTER_FAILURES in a row) and this delivery was never tried while a retry is pending.
   */
  private async mustWait(endpoint: EndpointRecord, d: DeliveryRecord): Promise<boolean> {
    if (!endpoint.active) return true;
    return d.attempts === 0 && endpoint.consecutiveFailures >= HOLD_AFTER_FAILURES && await this.hasRetryPending(endpoint);
  }

  /** Oldest first: retries are older than what waits behind them, so a long wait list is not scanned. */
  private async hasRetryPending(endpoint: EndpointRecord): Promise<boolean> {
    const filter = { workspaceId: endpoint.workspaceId, endpointId: endpoint._id, state: 'retrying', nextAttemptAt: { $ne: null } };
    return !!(await this.deliveries.findOne(filter, { sort: [['_id', 1]] }));
  }

  /**
   * Parks a delivery (kept pending, out of the queue), then looks at its endpoint again: a switch-on or a try
   * that got through in between released the endpoint's parked deliveries before this one was parked.
   */
  private async park(d: DeliveryRecord): Promise<void> {
    const scope = { workspaceId: d.workspaceId, _id: d._id };
    await this.deliveries.updateOne(scope, { $set: { nextAttemptAt: null } });
    const endpoint = await this.endpoints.findById(d.workspaceId, d.endpointId);
    if (endpoint && !(await this.mustWait(endpoint, d))) {
      await this.deliveries.updateOne({ ...scope, nextAttemptAt: null }, { $set: { nextAttemptAt: this.app.clock.now() } });
    }
  }

  private async giveUp(d: DeliveryRecord, why: string): Promise<void> {
    const now = this.app.clock.now();
    await this.deliveries.updateOne({ workspaceId: d.workspaceId, _id: d._id }, { $set: { state: 'failed', error: why, nextAttemptAt: null, finishedAt: now } });
    this.pruneSoon(d.workspaceId, d.endpointId);
  }

  /**
   * Prunes an endpoint's log after a finished delivery. Finishes that come while a prune of the same endpoint
   * runs share the one that follows it, so a busy endpoint costs a prune per round, not per delivery; at rest
   * the log holds exactly the last 100.
   */
  private pruneSoon(workspaceId: string, endpointId: string): void {
    const key = `${workspaceId}|${endpointId}`;
    if (this.pruning.has(key)) { this.pruning.set(key, true); return; }
    this.pruning.set(key, false);
    this.track((async () => {
      try {
        do {
          this.pruning.set(key, false);
          await this.pruneLog(workspaceId, endpointId);
        } while (this.pruning.get(key));
      } finally { this.pruning.delete(key); }
    })());
  }

  /** Keeps the newest 100 deliveries of an endpoint; older ones go once finished (pending ones are never dropped). */
  private async pruneLog(workspaceId: string, endpointId: string): Promise<void> {
    const [oldestKept] = await this.deliveries.find({ workspaceId, endpointId }, { skip: DELIVERY_LOG_SIZE - 1, limit: 1 });
    if (!oldestKept) return;
    await this.deliveries.deleteMany({ workspaceId, endpointId, _id: { $lt: oldestKept._id }, state: { $in: FINISHED_STATES } });
  }

  private async expireParked(): Promise<void> {
    const now = this.app.clock.now();
    await this.deliveries.updateMany(
      { nextAttemptAt: null, state: { $in: PENDING_STATES }, createdAt: { $lt: now - EVENT_RETENTION_MS } },
      { $set: { state: 'failed', error: 'not sent: the endpoint was switched off for more than the week events are kept', finishedAt: now } },
      { crossWorkspace: true },
    );
  }

  /**
   * Hourly: drop events older than a week (they can no longer be redelivered), and close the deliveries that
   * waited that long for their endpoint to be switched on.
   */
  private maintain(): void {
    if (!this.running) return;
    this.track(this.app.events.prune());
    this.track(this.expireParked());
    this.maintenanceTimer = this.app.clock.setTimeout(() => this.maintain(), MAINTENANCE_INTERVAL_MS);
  }
}
