/**
 * Webhook delivery: turns stored bus events into durable delivery records (one per subscribed active endpoint)
 * and sends them. An event with subscribers is stored marked `fanOutPending` (in the same write as the event);
 * the mark is cleared once its delivery records are stored, and start-up finishes any marked event left by a
 * crash. Those records have ids derived from event and endpoint, so finishing twice makes no duplicate.
 * Records carry nextAttemptAt; a scheduler driven by app.clock picks due ones, so a restart (or a kill -9)
 * resumes from the store. A try cut off by a crash is sent again at start-up: at-least-once, which the
 * spec allows (receivers de-duplicate on id).
 */
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../app.js';
import type { TimerHandle } from '../../clock.js';
import type { GuardedClient } from '../../security/guarded-client.js';
import { openSecret } from '../../security/secret-box.js';
import { newId } from '../../store/ids.js';
import { DuplicateKeyError, type Collection } from '../../store/types.js';
import type { EventRecord } from '../bus.js';
import {
  DELIVERY_LOG_SIZE, DELIVERY_TIMEOUT_MS, MAINTENANCE_INTERVAL_MS, MAX_IN_FLIGHT, MAX_REDIRECTS, MAX_TRIES,
  RESPONSE_SNIPPET_BYTES, RETRY_DELAYS_MS, SWITCH_OFF_AFTER_FAILURES, isDeliverable,
} from './constants.js';
import {
  FINISHED_STATES, deliveriesCollection, endpointsCollection,
  type DeliveryRecord, type EndpointRecord,
} from './records.js';
import { webhookBody, webhookHeaders } from './signature.js';
import { recordWebhookAttempt } from '../../metrics/record.js';

export interface DispatcherOptions {
  maxInFlight?: number;
}

/** Due order: earliest nextAttemptAt first, then oldest record (served by the collection's queue index). */
const QUEUE_ORDER: Array<[string, 1 | -1]> = [['nextAttemptAt', 1], ['_id', 1]];

/** Workspaces whose active endpoints are kept in memory (least recently loaded dropped first beyond this). */
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
  private readonly maxInFlight: number;
  private inFlight = new Map<string, Promise<void>>();
  private tasks = new Set<Promise<unknown>>();
  private pumping = false;
  private again = false;
  private running = false;
  private timer: TimerHandle | null = null;
  private maintenanceTimer: TimerHandle | null = null;
  private shutdown = new AbortController();
  private unsubscribe: (() => void) | null = null;
  /**
   * Active endpoints by workspace, so a stored event of a workspace without webhooks costs no query. Every
   * change to endpoints goes through invalidate(); `cacheVersion` keeps a load that raced a change from being kept.
   */
  private activeByWorkspace = new Map<string, EndpointTarget[]>();
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
    this.maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT;
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
    this.activeByWorkspace.clear(); // a later start reads the store afresh
    this.cacheVersion += 1;
    if (this.timer) this.app.clock.clearTimeout(this.timer);
    if (this.maintenanceTimer) this.app.clock.clearTimeout(this.maintenanceTimer);
    this.timer = this.maintenanceTimer = null;
    this.shutdown.abort();
    await this.settled();
  }

  /** Resolves once no enqueueing, scheduling or try is under way (tests wait on it after advancing the clock). */
  async settled(): Promise<void> {
    while (this.tasks.size || this.inFlight.size) {
      await Promise.allSettled([...this.tasks, ...this.inFlight.values()]);
    }
  }

  /** Queues one delivery of a stored event to one endpoint (test pings and redeliveries), sent at once. */
  async queue(endpoint: EndpointRecord, event: Pick<EventRecord, '_id' | 'type'>, opts: { manual: boolean; redeliveryOf?: string | null }): Promise<DeliveryRecord> {
    const record = this.newDelivery(endpoint, event, opts.manual, opts.redeliveryOf ?? null);
    await this.deliveries.insertOne(record);
    this.kick();
    return record;
  }

  /** Forgets the cached active endpoints of a workspace; call after any change to its endpoints. */
  invalidate(workspaceId: string, fromGroup = false): void {
    this.activeByWorkspace.delete(workspaceId);
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

  private async activeEndpoints(workspaceId: string): Promise<EndpointTarget[]> {
    const hit = this.activeByWorkspace.get(workspaceId);
    if (hit) return hit;
    const version = this.cacheVersion;
    const rows = await this.endpoints.find({ workspaceId, active: true });
    const list = rows.map((e) => ({ _id: e._id, workspaceId: e.workspaceId, events: e.events }));
    if (version === this.cacheVersion) {
      if (this.activeByWorkspace.size >= ENDPOINT_CACHE_SIZE) this.activeByWorkspace.delete(this.activeByWorkspace.keys().next().value!);
      this.activeByWorkspace.set(workspaceId, list);
    }
    return list;
  }

  /** Asked by the bus before it stores an event: whether the event must be marked for fan-out. */
  private async hasSubscribers(event: EventRecord): Promise<boolean> {
    return isDeliverable(event.type, event.data) && (await this.subscribers(event)).length > 0;
  }

  /** The active endpoints that take this event's type. */
  private async subscribers(event: EventRecord): Promise<EndpointTarget[]> {
    return (await this.activeEndpoints(event.workspaceId)).filter((e) => e.events.includes(event.type));
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

  /** Starts due deliveries up to the in-flight bound, then sets one timer for the next due time. */
  private async pump(): Promise<void> {
    if (this.pumping) { this.again = true; return; }
    this.pumping = true;
    // Every slot taken: a finishing try pumps again, so the next due time is looked up only when one stays free.
    let full = false;
    try {
      do {
        this.again = false;
        const free = this.maxInFlight - this.inFlight.size;
        if (free <= 0) { full = true; break; }
        const busy = [...this.inFlight.keys()];
        const due = await this.deliveries.find(
          { nextAttemptAt: { $lte: this.app.clock.now() }, ...(busy.length ? { _id: { $nin: busy } } : {}) },
          { crossWorkspace: true, sort: QUEUE_ORDER, limit: free },
        );
        for (const d of due) if (this.running) this.launch(d);
        full = due.length === free;
      } while (this.again && this.running);
      if (!full) await this.arm();
    } finally {
      this.pumping = false;
      if (this.again) this.kick();
    }
  }

  private async arm(): Promise<void> {
    if (!this.running) return;
    const busy = [...this.inFlight.keys()];
    const next = await this.deliveries.findOne(
      { nextAttemptAt: { $ne: null }, ...(busy.length ? { _id: { $nin: busy } } : {}) },
      { crossWorkspace: true, sort: QUEUE_ORDER },
    );
    if (this.timer) { this.app.clock.clearTimeout(this.timer); this.timer = null; }
    const now = this.app.clock.now();
    // Something due now waits for a free slot: a finishing try kicks the pump again.
    if (!next || next.nextAttemptAt === null || next.nextAttemptAt <= now || !this.running) return;
    this.timer = this.app.clock.setTimeout(() => { this.timer = null; this.kick(); }, next.nextAttemptAt - now);
  }

  private launch(d: DeliveryRecord): void {
    const p = this.attempt(d)
      .catch((err) => this.app.log.error({ err, deliveryId: d._id }, 'webhook delivery failed unexpectedly'))
      .finally(() => { this.inFlight.delete(d._id); this.kick(); });
    this.inFlight.set(d._id, p);
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
    if (!endpoint.active && !d.manual) return this.giveUp(d, 'not sent: the endpoint is switched off');
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
      if (endpoint.consecutiveFailures !== 0) await this.endpoints.updateOne({ ...scope, consecutiveFailures: { $ne: 0 } }, { $set: { consecutiveFailures: 0 } });
    } else {
      const after = await this.endpoints.updateOne(scope, { $inc: { consecutiveFailures: 1 } });
      if (after?.active && after.consecutiveFailures >= SWITCH_OFF_AFTER_FAILURES) {
        await this.endpoints.updateOne({ ...scope, active: true }, { $set: { active: false, disabledAt: now, updatedAt: now } });
        this.invalidate(endpoint.workspaceId);
        this.app.log.warn({ endpointId: endpoint._id, workspaceId: endpoint.workspaceId }, 'webhook endpoint switched off after 20 failures in a row');
      }
    }
    if (finished) this.pruneSoon(d.workspaceId, d.endpointId);
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

  /** Hourly: drop events older than a week (they can no longer be redelivered). */
  private maintain(): void {
    if (!this.running) return;
    this.track(this.app.events.prune());
    this.maintenanceTimer = this.app.clock.setTimeout(() => this.maintain(), MAINTENANCE_INTERVAL_MS);
  }
}
