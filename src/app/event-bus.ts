import type { Clock } from '../kernel/clock.js';
import type { Logger } from '../kernel/log.js';
import { newId } from '../store/ids.js';
import type { Collection, Doc, DocumentStore } from '../store/types.js';

export interface EventRecord extends Doc {
  type: string;
  /** Always carries workspaceId (service-api.md, Events). */
  data: Record<string, unknown>;
  createdAt: number;
  /**
   * Set while a durable follow-up (webhook delivery records) is still to be written: stored with the event in
   * one write, cleared once the follow-up is stored, so a crash in between is found and finished at start-up.
   */
  fanOutPending?: true;
}

/** Gets every stored event; volatile ones too when subscribed with `volatileFor` (see SubscribeOptions). */
export type EventListener = (event: EventRecord) => void;

export interface SubscribeOptions {
  /**
   * Volatile events (publishVolatile) go only to listeners that ask for them, and only for the workspaces this
   * says yes to: a streamed delta costs nothing when no one in its workspace is watching.
   */
  volatileFor?(workspaceId: string): boolean;
  /**
   * Scale-out: this listener serves connections of this process, so it also gets events published by the
   * group's other processes: those of the types listed (here and in any other listener's list), from every
   * process, whatever this one watches (a publish reaching the widgets open here). `true`: those types, without
   * asking for more. (The live sockets' frames of a workspace go only to the processes with live sockets of it,
   * encoded, straight to the live hub: src/group/join.ts, src/scale/interest.ts.) Listeners without
   * it (webhooks, analytics, follow-ups) get only this process's events, so each event's durable work is done
   * once, by the process that stored it.
   */
  everywhere?: true | readonly string[];
}

/** Sends this process's events to the rest of the group (src/scale); none when the server is one process. */
export type EventRelay = (event: EventRecord, volatile: boolean) => void;

export const EVENT_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** Says, before an event is stored, whether it needs a durable follow-up (see EventRecord.fanOutPending). */
export type PendingCheck = (event: EventRecord) => boolean | Promise<boolean>;

/** A volatile event: never stored, so its id (a random draw) is made only if a listener reads it. */
class VolatileEvent implements EventRecord {
  private id: string | null = null;
  constructor(readonly workspaceId: string, readonly type: string, readonly data: Record<string, unknown>, readonly createdAt: number) {}
  get _id(): string { return (this.id ??= newId('evt', this.createdAt)); }
  toJSON() { return { _id: this._id, workspaceId: this.workspaceId, type: this.type, data: this.data, createdAt: this.createdAt }; }
}

/**
 * One bus per process. `publish` stores the event first, then fans it out (live sockets, webhook queue);
 * `publishVolatile` is for streaming noise (message.delta, visitor.typing, agent.status) that goes to live
 * sockets only and is never stored or sent as a webhook.
 */
export class EventBus {
  private listeners = new Set<EventListener>();
  private everywhere = new Set<EventListener>();
  private relay: EventRelay | null = null;
  /** Types some listener needs from every process of the group (SubscribeOptions.everywhere as a list). */
  private readonly groupWideTypes = new Map<string, number>();
  /** An array, not a Map: publishVolatile runs for every streamed delta and an indexed loop allocates nothing. */
  private volatileListeners: { listener: EventListener; wants(workspaceId: string): boolean }[] = [];
  private pendingCheck: PendingCheck | null = null;
  readonly collection: Collection<EventRecord>;

  constructor(store: DocumentStore, private clock: Clock, private log: Logger) {
    this.collection = store.collection<EventRecord>('events', { indexes: [{ fields: [['createdAt', 1]] }, { fields: [['workspaceId', 1], ['type', 1]] }, { fields: [['fanOutPending', 1]] }] });
  }

  /** Stored events go to every listener; volatile ones only to those with `volatileFor` (see SubscribeOptions). */
  subscribe(listener: EventListener, options: SubscribeOptions = {}): () => void {
    this.listeners.add(listener);
    if (options.everywhere) this.everywhere.add(listener);
    const types = Array.isArray(options.everywhere) ? options.everywhere : [];
    for (const t of types) this.groupWideTypes.set(t, (this.groupWideTypes.get(t) ?? 0) + 1);
    if (options.volatileFor) this.volatileListeners = [...this.volatileListeners, { listener, wants: options.volatileFor.bind(options) }];
    return () => {
      if (!this.listeners.has(listener)) return;
      for (const t of types) { const n = this.groupWideTypes.get(t)! - 1; if (n) this.groupWideTypes.set(t, n); else this.groupWideTypes.delete(t); }
      this.listeners.delete(listener);
      this.everywhere.delete(listener);
      this.volatileListeners = this.volatileListeners.filter((v) => v.listener !== listener);
    };
  }

  /** One check per bus (the webhook dispatcher's); null removes it. */
  setPendingCheck(check: PendingCheck | null): void {
    this.pendingCheck = check;
  }

  /** Whether a stored event of this type goes to every process of the group (SubscribeOptions.everywhere). */
  groupWide(type: string): boolean {
    return this.groupWideTypes.has(type);
  }

  setRelay(relay: EventRelay | null): void {
    this.relay = relay;
  }

  /** An event another process of the group published: to `everywhere` listeners only (volatile ones as asked). */
  deliverRemote(event: EventRecord, volatile: boolean): void {
    if (!volatile) {
      for (const l of this.everywhere) this.call(l, event);
      return;
    }
    for (const v of this.volatileListeners) if (this.everywhere.has(v.listener) && v.wants(event.workspaceId)) this.call(v.listener, event);
  }

  async publish(workspaceId: string, type: string, data: Record<string, unknown>): Promise<EventRecord> {
    const now = this.clock.now();
    const event: EventRecord = { _id: newId('evt', now), workspaceId, type, data: { ...data, workspaceId }, createdAt: now };
    if (this.pendingCheck && await this.pendingCheck(event)) event.fanOutPending = true;
    await this.collection.insertOne(event);
    this.relay?.(event, false);
    for (const l of this.listeners) this.call(l, event);
    return event;
  }

  /** Called for every streamed delta: nothing is built when no one listens, and the id only when it is read. */
  publishVolatile(workspaceId: string, type: string, data: Record<string, unknown>): void {
    const subs = this.volatileListeners;
    let event: VolatileEvent | null = null;
    if (this.relay) this.relay(event = new VolatileEvent(workspaceId, type, { ...data, workspaceId }, this.clock.now()), true);
    for (let i = 0; i < subs.length; i++) {
      if (!subs[i].wants(workspaceId)) continue;
      event ??= new VolatileEvent(workspaceId, type, { ...data, workspaceId }, this.clock.now());
      this.call(subs[i].listener, event);
    }
  }

  /** Deletes stored events older than the retention window (a week). */
  async prune(): Promise<number> {
    return this.collection.deleteMany({ createdAt: { $lt: this.clock.now() - EVENT_RETENTION_MS } }, { crossWorkspace: true });
  }

  /** A listener that throws is logged; the others still get the event. */
  private call(listener: EventListener, event: EventRecord): void {
    try { listener(event); } catch (err) { this.log.error({ err, type: event.type }, 'event listener failed'); }
  }
}
