import type { AppContext } from '../app/context.js';
import type { TimerHandle } from '../kernel/clock.js';
import type { SocketConn } from '../http/types.js';
import { botOfflineNow, nextHoursChange } from '../bots/hours.js';
import { encodeFrame } from '../conversation/protocol.js';
import type { WidgetSocketData } from './widget-socket.js';

/** A boundary further away than this is checked again then (a timer of days would outlive most sockets anyway). */
const MAX_WAIT_MS = 24 * 3600_000;

/**
 * behavior.hours.scope bot on open chats: the ready frame says whether the bot is offline, and when its hours open
 * or close while a widget is open, an `offline` frame tells it (the face falls asleep or wakes). One timer per bot
 * (on the injectable clock) at the nearest boundary of the configs its sockets run; a publish recomputes it.
 */
export class OfflineWatch {
  private readonly byBot = new Map<string, { conns: Set<SocketConn<WidgetSocketData>>; timer: TimerHandle | null }>();

  constructor(private readonly app: AppContext) {}

  /** Whether the socket's bot is offline now (for its ready frame); remembers what the socket was told. */
  add(conn: SocketConn<WidgetSocketData>): boolean {
    const offline = botOfflineNow(conn.data.chat.config, this.app.clock.now());
    conn.data.offline = offline;
    const id = conn.data.chat.bot._id;
    let entry = this.byBot.get(id);
    if (!entry) { entry = { conns: new Set(), timer: null }; this.byBot.set(id, entry); }
    const first = entry.conns.size === 0;
    entry.conns.add(conn);
    if (first || conn.data.chat.config !== [...entry.conns][0].data.chat.config) this.schedule(id);
    return offline;
  }

  remove(conn: SocketConn<WidgetSocketData>): void {
    const id = conn.data.chat.bot._id;
    const entry = this.byBot.get(id);
    if (!entry?.conns.delete(conn) || entry.conns.size) return;
    if (entry.timer) this.app.clock.clearTimeout(entry.timer);
    this.byBot.delete(id);
  }

  /** The bot's sockets may run another config (a publish): tell those whose state changed, and re-aim the timer. */
  recheck(botId: string): void {
    if (this.byBot.has(botId)) this.tick(botId);
  }

  private tick(botId: string): void {
    const entry = this.byBot.get(botId);
    if (!entry) return;
    const now = this.app.clock.now();
    for (const conn of entry.conns) {
      if (conn.closed) continue;
      const offline = botOfflineNow(conn.data.chat.config, now);
      if (offline === conn.data.offline) continue;
      conn.data.offline = offline;
      conn.send(encodeFrame({ t: 'offline', offline }));
    }
    this.schedule(botId);
  }

  private schedule(botId: string): void {
    const entry = this.byBot.get(botId);
    if (!entry) return;
    if (entry.timer) { this.app.clock.clearTimeout(entry.timer); entry.timer = null; }
    const now = this.app.clock.now();
    let next = Infinity;
    for (const config of new Set([...entry.conns].map((c) => c.data.chat.config))) {
      const hours = config.behavior.hours;
      if (!hours.enabled || hours.scope !== 'bot') continue;
      next = Math.min(next, nextHoursChange(hours, now) ?? now + MAX_WAIT_MS);
    }
    if (next === Infinity) return;
    entry.timer = this.app.clock.setTimeout(() => { entry.timer = null; this.tick(botId); }, Math.min(next - now, MAX_WAIT_MS));
  }
}

