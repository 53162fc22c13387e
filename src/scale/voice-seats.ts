import type { AppContext } from '../app.js';
import { perApp } from '../app.js';
import type { ScaleNode } from './node.js';

/**
 * How long a process's word that a voice session is live holds without being repeated. A killed process's seats
 * go sooner: with its membership (about 3 s; seatTake drops seats of processes no longer members).
 */
const SEAT_TTL_MS = 30_000;
const REFRESH_MS = 10_000;

/**
 * security.caps.concurrentVoiceSessions counted across a scale-out group: a Redis sorted set per bot of
 * "<process>|<session>" scored by until when it holds (Redis's clock, so skew between processes does not
 * matter), taken atomically (seatTake) and repeated every 10 s while the session lives. Alone, or while Redis
 * is away, each process counts its own sessions (VoiceService's count): at most N times the cap, never none.
 */
class VoiceSeats {
  /** Seats this process holds: bot id -> its sessions. */
  private readonly held = new Map<string, Set<string>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly node: ScaleNode) {
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  private key(botId: string): string { return `${this.node.prefix}voice:${botId}`; }

  /** Takes a seat for the session; false when `max` sessions of the bot are live in the group. */
  async take(botId: string, sessionId: string, max: number): Promise<boolean> {
    if (this.node.healthy) {
      try {
        this.node.trip();
        if ((await this.node.cmd.seatTake(this.key(botId), `${this.node.id}|${sessionId}`, max, SEAT_TTL_MS, this.node.membershipPrefix)) !== 1) return false;
      } catch { /* Redis away: this process's own count (checked by the caller) decides */ }
    }
    const set = this.held.get(botId) ?? new Set<string>();
    this.held.set(botId, set.add(sessionId));
    return true;
  }

  /** Gives the seat back; resolves once Redis has it (at once, and never rejects, while Redis is away). */
  async leave(botId: string, sessionId: string): Promise<void> {
    const set = this.held.get(botId);
    if (!set?.delete(sessionId)) return;
    if (!set.size) this.held.delete(botId);
    if (!this.node.healthy) return; // its entry lapses by itself
    this.node.trip();
    await this.node.cmd.zrem(this.key(botId), `${this.node.id}|${sessionId}`).catch(() => {});
  }

  private async refresh(): Promise<void> {
    if (!this.node.healthy || !this.held.size) return;
    for (const [botId, sessions] of this.held) {
      this.node.trip();
      await this.node.cmd.seatKeep(this.key(botId), SEAT_TTL_MS, ...[...sessions].map((s) => `${this.node.id}|${s}`)).catch(() => {});
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.held].flatMap(([botId, sessions]) => [...sessions].map((s) => this.leave(botId, s))));
  }
}

const seats = perApp((app: AppContext) => {
  if (!app.scale) return null;
  const s = new VoiceSeats(app.scale);
  app.onClose(() => s.close());
  return s;
});

/** A group-wide seat for a new voice session of `botId` (always true for a server of one process). */
export function takeVoiceSeat(app: AppContext, botId: string, sessionId: string, max: number): Promise<boolean> {
  return seats(app)?.take(botId, sessionId, max) ?? Promise.resolve(true);
}

/** Gives the seat back; the promise (never rejected) settles once the group knows. */
export function leaveVoiceSeat(app: AppContext, botId: string, sessionId: string): Promise<void> {
  return seats(app)?.leave(botId, sessionId) ?? Promise.resolve();
}
