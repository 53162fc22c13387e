import type { AppContext } from '../app/context.js';
import type { SocketConn } from '../http/types.js';
import { loadBotForChat } from '../bots/bot-source.js';
import type { OfflineWatch } from './offline-watch.js';
import { encodeFrame } from '../conversation/protocol.js';
import type { WidgetSocketData } from './widget-socket.js';

/** Close code for a widget socket whose visitor no longer meets security.identity.mode (4000-4999: the app's own). */
export const IDENTITY_REQUIRED_CLOSE = 4401;

/**
 * Open widget sockets by bot, so a publish reaches them: new conversations on an open chat use the new version, and
 * when the new version requires identity, sockets of visitors without a verified identity are told and closed
 * (checks made at connect would otherwise hold for as long as the socket lives). Preview sockets run the draft and
 * are left alone.
 */
export class PublishedBotWatch {
  private readonly byBot = new Map<string, Set<SocketConn<WidgetSocketData>>>();

  constructor(private readonly app: AppContext, private readonly hours: OfflineWatch) {
    app.events.subscribe((e) => {
      if (e.type !== 'bot.published') return;
      const botId = (e.data as { botId?: unknown }).botId;
      if (typeof botId === 'string' && this.byBot.has(botId)) {
        this.refresh(botId).catch((err) => app.log.error({ err, botId }, 'applying a publish to open chats failed'));
      }
    }, { everywhere: ['bot.published'] }); // a publish on any process of the group reaches the widgets open here
  }

  add(conn: SocketConn<WidgetSocketData>): void {
    if (conn.data.chat.preview) return;
    const id = conn.data.chat.bot._id;
    let set = this.byBot.get(id);
    if (!set) { set = new Set(); this.byBot.set(id, set); }
    set.add(conn);
  }

  remove(conn: SocketConn<WidgetSocketData>): void {
    const id = conn.data.chat.bot._id;
    const set = this.byBot.get(id);
    if (set?.delete(conn) && set.size === 0) this.byBot.delete(id);
  }

  private async refresh(botId: string): Promise<void> {
    const chat = await loadBotForChat(this.app, botId);
    const set = this.byBot.get(botId);
    if (!chat || !set) return;
    const required = chat.config.security.identity.mode === 'required';
    for (const conn of [...set]) {
      if (conn.closed) continue;
      if (required && !conn.data.visitor.verified) {
        conn.send(encodeFrame({ t: 'error', code: 'unauthorized', message: 'this chat now needs you to be signed in on this site; sign in and reload the page' }));
        conn.close(IDENTITY_REQUIRED_CLOSE, 'identity required');
        continue;
      }
      conn.data.chat = chat;
    }
    this.hours.recheck(botId);
  }
}

