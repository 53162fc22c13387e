import type { AppContext } from '../app/context.js';
import type { ScaleNode } from './node.js';
import { nodeOf } from './node-of.js';

/**
 * How long a process's word that a voice session is live holds without being repeated. A killed process's seats
 * go sooner: with its membership (about 3 s; seatTake drops seats of processes no longer members).
 */
const SEAT_TTL_MS = 30_000;
const REFRESH_MS = 10_000;

/**
 * What a voice session counts against: its bot (the bot's id: security.caps.concurrentVoiceSessions), its visitor
 * (`visitor:<id>`: VOICE_SESSIONS_PER_VISITOR) and its address (`address:<ip or IPv6 /64>`: VOICE_SESSIONS_PER_ADDRESS).
 */
export interface VoiceSeatClaim { scope: string; max: number }

/**
 * Voice session limits counted across a scale-out group: a Redis sorted set per scope (a bot, a visitor, an
 * address) of "<process>|<session>" scored by until when it holds (Redis's clock, so skew between processes does
 * not matter), taken atomically (seatTake) and repeated every 10 s while the session lives. Alone, or while Redis
 * is away, each process counts its own sessions (VoiceService's count): at most N times the cap, never none.
 */
export class VoiceSeats {
  /** Seats this process holds: scope -> its sessions. */
  private readonly held = new Map<string, Set<string>>();
  private readonly stopRefreshing: () => void;

  constructor(private readonly node: ScaleNode) {
    this.stopRefreshing = node.heartbeat.every(REFRESH_MS, () => void this.refresh());
  }

  private key(scope: string): string { return `${this.node.prefix}voice:${scope}`; }

  /** Takes a seat for the session in `scope`; false when `max` sessions of it are live in the group. */
  async take(scope: string, sessionId: string, max: number): Promise<boolean> {
    if (this.node.healthy) {
      try {
        if ((await this.node.cmd.seatTake(this.key(scope), `${this.node.id}|${sessionId}`, max, SEAT_TTL_MS, this.node.membershipPrefix)) !== 1) return false;
      } catch { /* Redis away: this process's own count (checked by the caller) decides */ }
    }
    const set = this.held.get(scope) ?? new Set<string>();
    this.held.set(scope, set.add(sessionId));
    return true;
  }

  /** Gives the seat back; resolves once Redis has it (at once, and never rejects, while Redis is away). */
  async leave(scope: string, sessionId: string): Promise<void> {
    const set = this.held.get(scope);
    if (!set?.delete(sessionId)) return;
    if (!set.size) this.held.delete(scope);
    if (!this.node.healthy) return; // its entry lapses by itself
    await this.node.cmd.zrem(this.key(scope), `${this.node.id}|${sessionId}`).catch(() => {});
  }

  private async refresh(): Promise<void> {
    if (!this.node.healthy || !this.held.size) return;
    // Issued in this turn of the event loop: one write with the rest of the heartbeat.
    await Promise.all([...this.held].map(([scope, sessions]) => this.node.cmd.seatKeep(this.key(scope), SEAT_TTL_MS, ...[...sessions].map((s) => `${this.node.id}|${s}`)).catch(() => {})));
  }

  async close(): Promise<void> {
    this.stopRefreshing();
    await Promise.all([...this.held].flatMap(([scope, sessions]) => [...sessions].map((s) => this.leave(scope, s))));
  }
}

/**
 * The group's voice seats, or null for a server of one process (whose VoiceService counts by itself). The
 * composition root makes it once and closes it at shutdown (its seats are given back).
 */
export function createVoiceSeats(app: AppContext): VoiceSeats | null {
  const node = nodeOf(app);
  return node ? new VoiceSeats(node) : null;
}

/**
 * Group-wide seats for a new voice session, one per claim, taken in order: the index of the first claim whose
 * `max` sessions are already live (the seats taken before it are given back), or -1 when all were taken (always
 * -1 for a server of one process, whose VoiceService counts by itself).
 */
export async function takeVoiceSeats(s: VoiceSeats | null, sessionId: string, claims: readonly VoiceSeatClaim[]): Promise<number> {
  if (!s) return -1;
  for (let i = 0; i < claims.length; i++) {
    if (await s.take(claims[i].scope, sessionId, claims[i].max)) continue;
    await Promise.all(claims.slice(0, i).map((c) => s.leave(c.scope, sessionId)));
    return i;
  }
  return -1;
}

/** Gives the session's seats back; the promise (never rejected) settles once the group knows. */
export async function leaveVoiceSeats(s: VoiceSeats | null, sessionId: string, scopes: readonly string[]): Promise<void> {
  if (s) await Promise.all(scopes.map((scope) => s.leave(scope, sessionId)));
}
