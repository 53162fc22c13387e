/**
 * Delivery slots shared fairly: tries in flight are counted for the process, per workspace and per endpoint, each
 * with its own bound (constants.ts). The dispatcher fills free slots in two rounds: first endpoints with nothing
 * in flight (one try each, oldest due first), then any endpoint still below its share. A slow receiver with a
 * backlog so holds at most its share, and a freed slot goes to an idle endpoint before it goes back to it.
 */
import { MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_ENDPOINT, MAX_IN_FLIGHT_PER_WORKSPACE } from './constants.js';

export interface SlotLimits {
  total: number;
  perWorkspace: number;
  perEndpoint: number;
}

export const DEFAULT_SLOT_LIMITS: SlotLimits = {
  total: MAX_IN_FLIGHT, perWorkspace: MAX_IN_FLIGHT_PER_WORKSPACE, perEndpoint: MAX_IN_FLIGHT_PER_ENDPOINT,
};

type Owner = { workspaceId: string; endpointId: string };

/** The two rounds of a fill: who is left out of the query, and how many tries an endpoint may reach in it. */
export interface FillRound {
  excludeEndpoints: string[];
  upTo: number;
}

export class DeliverySlots {
  private byId = new Map<string, { owner: Owner; done: Promise<void> }>();
  private perEndpoint = new Map<string, number>();
  private perWorkspace = new Map<string, number>();

  constructor(readonly limits: SlotLimits = DEFAULT_SLOT_LIMITS) {}

  get size(): number { return this.byId.size; }
  get free(): number { return this.limits.total - this.byId.size; }
  ids(): string[] { return [...this.byId.keys()]; }
  running(): Promise<void>[] { return [...this.byId.values()].map((s) => s.done); }

  /** Workspaces holding their whole share: left out of every query. */
  fullWorkspaces(): string[] {
    return [...this.perWorkspace].filter(([, n]) => n >= this.limits.perWorkspace).map(([w]) => w);
  }

  /** Round one serves endpoints with nothing in flight; round two those below their share (skipped if the same). */
  rounds(): FillRound[] {
    const busy = [...this.perEndpoint.keys()];
    const full = busy.filter((e) => this.perEndpoint.get(e)! >= this.limits.perEndpoint);
    const first = { excludeEndpoints: busy, upTo: 1 };
    return full.length === busy.length ? [{ ...first, upTo: this.limits.perEndpoint }] : [first, { excludeEndpoints: full, upTo: this.limits.perEndpoint }];
  }

  /** Whether one more try of this endpoint fits (the process, its workspace and the round's bound). */
  fits(owner: Owner, upTo: number): boolean {
    return this.free > 0
      && (this.perEndpoint.get(owner.endpointId) ?? 0) < Math.min(upTo, this.limits.perEndpoint)
      && (this.perWorkspace.get(owner.workspaceId) ?? 0) < this.limits.perWorkspace;
  }

  take(id: string, owner: Owner, done: Promise<void>): void {
    this.byId.set(id, { owner, done });
    bump(this.perEndpoint, owner.endpointId, 1);
    bump(this.perWorkspace, owner.workspaceId, 1);
  }

  release(id: string): void {
    const slot = this.byId.get(id);
    if (!slot) return;
    this.byId.delete(id);
    bump(this.perEndpoint, slot.owner.endpointId, -1);
    bump(this.perWorkspace, slot.owner.workspaceId, -1);
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n > 0) map.set(key, n); else map.delete(key);
}
