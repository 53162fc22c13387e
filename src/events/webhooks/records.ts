/** Stored records of webhook endpoints and deliveries, and the shapes the API shows of them. */
import type { Collection, Doc, DocumentStore } from '../../store/types.js';

export interface EndpointRecord extends Doc {
  url: string;
  events: string[];
  active: boolean;
  /** The signing secret, sealed with the server key (secret-box), bound to this record's id. */
  secretSealed: string;
  consecutiveFailures: number;
  /** When 20 failures in a row switched it off (null when on, or switched off by a person). */
  disabledAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** queued: first try not made yet; retrying: failed, another try is due; delivered / failed: finished. */
export type DeliveryState = 'queued' | 'retrying' | 'delivered' | 'failed';
export const FINISHED_STATES: DeliveryState[] = ['delivered', 'failed'];
export const PENDING_STATES: DeliveryState[] = ['queued', 'retrying'];

export interface AttemptRecord {
  at: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryRecord extends Doc {
  endpointId: string;
  eventId: string;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  /**
   * When the next try is due; null once finished, and null while pending (queued or retrying) when the delivery
   * waits for its endpoint (switched off, or failing with a retry pending): it is due again once released.
   */
  nextAttemptAt: number | null;
  statusCode: number | null;
  /** The start of the receiver's answer (first 1 KB). */
  response: string | null;
  error: string | null;
  /** Test pings and redeliveries: sent even while the endpoint is switched off. */
  manual: boolean;
  redeliveryOf: string | null;
  history: AttemptRecord[];
  createdAt: number;
  lastAttemptAt: number | null;
  finishedAt: number | null;
}

export function endpointsCollection(store: DocumentStore): Collection<EndpointRecord> {
  return store.collection<EndpointRecord>('webhook_endpoints', { indexes: [{ fields: [['workspaceId', 1], ['active', 1]] }] });
}

export function deliveriesCollection(store: DocumentStore): Collection<DeliveryRecord> {
  return store.collection<DeliveryRecord>('webhook_deliveries', {
    indexes: [
      // The scheduler's queue: only pending records have a nextAttemptAt; oldest first within the same time.
      { fields: [['nextAttemptAt', 1], ['_id', 1]] },
      // The log of one endpoint, newest first (listing and pruning).
      { fields: [['workspaceId', 1], ['endpointId', 1], ['_id', -1]] },
    ],
  });
}

export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  consecutiveFailures: number;
  disabledAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export const endpointView = (e: EndpointRecord): EndpointView => ({
  id: e._id, url: e.url, events: e.events, active: e.active, consecutiveFailures: e.consecutiveFailures,
  disabledAt: e.disabledAt, createdAt: e.createdAt, updatedAt: e.updatedAt,
});

export type DeliveryView = Omit<DeliveryRecord, '_id' | 'workspaceId'> & { id: string };

export const deliveryView = ({ _id, workspaceId: _ws, ...rest }: DeliveryRecord): DeliveryView => ({ id: _id, ...rest });
