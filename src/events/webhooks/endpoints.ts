/** Webhook endpoints of a workspace: add, change, rotate the secret, test, read the delivery log, redeliver. */
import type { AppContext } from '../../app/context.js';
import { conflict, invalid, notFound } from '../../kernel/errors.js';
import { OutboundError, parseOutboundUrl } from '../../security/guarded-client.js';
import { resolveChecked } from '../../security/guarded-connector.js';
import { sealSecret } from '../../security/secret-box.js';
import { newId, newSecret } from '../../store/ids.js';
import type { EventRecord } from '../../app/event-bus.js';
import { DELIVERY_LOG_SIZE, PING_EVENT, PING_MESSAGE, SECRET_PREFIX, WEBHOOK_EVENTS } from './constants.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { deliveryView, endpointView, type DeliveryView, type EndpointRecord, type EndpointView } from './records.js';

export interface EndpointInput {
  url: string;
  events: string[];
}
export interface EndpointPatch {
  url?: string;
  events?: string[];
  active?: boolean;
}

export class WebhookEndpoints {
  constructor(private app: AppContext, private dispatcher: WebhookDispatcher) {}

  private get col() { return this.dispatcher.endpoints; }

  async list(workspaceId: string): Promise<{ items: EndpointView[]; events: string[] }> {
    const all = await this.col.find({ workspaceId });
    return { items: all.map(endpointView), events: [...WEBHOOK_EVENTS] };
  }

  async get(workspaceId: string, id: string): Promise<EndpointRecord> {
    const e = await this.col.findById(workspaceId, id);
    if (!e) throw notFound('webhook endpoint');
    return e;
  }

  /** The answer carries the signing secret; it is stored sealed and never shown again. */
  async add(workspaceId: string, input: EndpointInput): Promise<EndpointView & { secret: string }> {
    const url = await this.checkUrl(input.url);
    const now = this.app.clock.now();
    const id = newId('whk', now);
    const secret = SECRET_PREFIX + newSecret(32);
    const record: EndpointRecord = {
      _id: id, workspaceId, url, events: dedupe(input.events), active: true,
      secretSealed: sealSecret(secret, this.app.secretKey, id), consecutiveFailures: 0, disabledAt: null, createdAt: now, updatedAt: now,
    };
    await this.col.insertOne(record);
    this.dispatcher.invalidate(workspaceId);
    return { ...endpointView(record), secret };
  }

  /**
   * Switching an endpoint on resets its failure count (service-api.md, States and transitions) and sends what it
   * missed: the deliveries that waited for it, within the week events are kept.
   */
  async update(workspaceId: string, id: string, patch: EndpointPatch): Promise<EndpointView> {
    const current = await this.get(workspaceId, id);
    const set: Record<string, unknown> = { updatedAt: this.app.clock.now() };
    if (patch.url !== undefined) set.url = await this.checkUrl(patch.url);
    if (patch.events !== undefined) set.events = dedupe(patch.events);
    if (patch.active !== undefined) {
      set.active = patch.active;
      if (patch.active && !current.active) Object.assign(set, { consecutiveFailures: 0, disabledAt: null });
    }
    const after = await this.col.updateOne({ workspaceId, _id: id }, { $set: set });
    this.dispatcher.invalidate(workspaceId);
    if (!after) throw notFound('webhook endpoint');
    if (after.active && !current.active) await this.dispatcher.release(workspaceId, id);
    return endpointView(after);
  }

  async rotateSecret(workspaceId: string, id: string): Promise<{ id: string; secret: string }> {
    await this.get(workspaceId, id);
    const secret = SECRET_PREFIX + newSecret(32);
    await this.col.updateOne({ workspaceId, _id: id }, { $set: { secretSealed: sealSecret(secret, this.app.secretKey, id), updatedAt: this.app.clock.now() } });
    this.dispatcher.invalidate(workspaceId);
    return { id, secret };
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const deleted = await this.col.deleteOne({ workspaceId, _id: id });
    this.dispatcher.invalidate(workspaceId);
    if (!deleted) throw notFound('webhook endpoint');
    await this.dispatcher.deliveries.deleteMany({ workspaceId, endpointId: id });
  }

  /**
   * A ping is stored like any event (so it is retried and can be redelivered) but is addressed to this one
   * endpoint only: it is written to the events store directly instead of being broadcast on the bus.
   */
  async sendTest(workspaceId: string, id: string): Promise<{ eventId: string; delivery: DeliveryView }> {
    const endpoint = await this.get(workspaceId, id);
    const now = this.app.clock.now();
    const event: EventRecord = { _id: newId('evt', now), workspaceId, type: PING_EVENT, data: { workspaceId, message: PING_MESSAGE }, createdAt: now };
    await this.app.events.collection.insertOne(event);
    const delivery = await this.dispatcher.queue(endpoint, event, { manual: true });
    return { eventId: event._id, delivery: deliveryView(delivery) };
  }

  async deliveries(workspaceId: string, id: string, page: { limit?: number; before?: string } = {}): Promise<{ items: DeliveryView[]; nextBefore: string | null }> {
    await this.get(workspaceId, id);
    const limit = Math.min(page.limit ?? DELIVERY_LOG_SIZE, DELIVERY_LOG_SIZE);
    const rows = await this.dispatcher.deliveries.find({ workspaceId, endpointId: id }, { limit: limit + 1, before: page.before });
    const more = rows.length > limit;
    const list = rows.slice(0, limit);
    return { items: list.map(deliveryView), nextBefore: more ? list[list.length - 1]._id : null };
  }

  async getDelivery(workspaceId: string, deliveryId: string): Promise<DeliveryView> {
    const d = await this.dispatcher.deliveries.findById(workspaceId, deliveryId);
    if (!d) throw notFound('webhook delivery');
    return deliveryView(d);
  }

  /** Sends the same event (same id and body) again now, as a new delivery in the log. */
  async redeliver(workspaceId: string, deliveryId: string): Promise<DeliveryView> {
    const original = await this.dispatcher.deliveries.findById(workspaceId, deliveryId);
    if (!original) throw notFound('webhook delivery');
    const endpoint = await this.get(workspaceId, original.endpointId);
    const event = await this.app.events.collection.findById(workspaceId, original.eventId);
    if (!event) throw conflict('the event of this delivery is no longer stored (events are kept a week)');
    return deliveryView(await this.dispatcher.queue(endpoint, event, { manual: true, redeliveryOf: original._id }));
  }

  /** https only in production; the target must be public unless ALLOW_PRIVATE_NETWORK (checked again on every try). */
  private async checkUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = parseOutboundUrl(raw);
    } catch (err) {
      throw invalid(`url: ${(err as Error).message}`);
    }
    if (this.app.config.production && url.protocol !== 'https:') throw invalid('url: must use https');
    try {
      await resolveChecked(url.hostname, { allowPrivateNetwork: this.app.config.allowPrivateNetwork });
    } catch (err) {
      if (err instanceof OutboundError) throw invalid(`url: ${err.message}`);
      throw err;
    }
    return url.href;
  }
}

const dedupe = (events: string[]) => [...new Set(events)];
