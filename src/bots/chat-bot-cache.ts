/**
 * The published bots as a widget needs them (bot-source.ts's ChatBot: the record's status and identity secret, the
 * parsed published config, the brain's adapter), kept in memory per bot (issue 37): a widget connect, the widget's
 * config and its uploads read nothing of the bot from the store once it is kept, and parse nothing.
 *
 * Dropped with the workspace's bots list (list-cache.ts, `onDrop`): every write to the bots collection, on this
 * process before the writer is answered and, in a scale-out group, on every other process (an acknowledged
 * broadcast). A read that began before a drop is neither kept nor joined, so a connect after a publish, a pause
 * or a new identity secret never gets the bot as it was. Past CHAT_BOT_TTL_MS an entry is served once more while
 * it is read again beside the connect: that bounds how long a change made outside the bots area shows late (a
 * store edited by hand, a group whose Redis was away; a provider connection's change drops them too, see
 * src/api/routes/providers.ts).
 * A kept ChatBot is shared by every socket of the bot: read-only.
 */
import type { AppContext } from '../app/context.js';
import type { ChatBot } from './bot-source.js';
import { BotConfigSchema } from './config/index.js';
import type { BotLists } from './list-cache.js';
import { KeptReads } from '../kernel/kept-reads.js';

export const CHAT_BOT_TTL_MS = 2_000;
/** Bots kept at most (the longest kept go first). */
const MAX_BOTS = 10_000;

type Loader = (botId: string) => Promise<ChatBot | null>;

interface Entry {
  /** Null: no such bot, or nothing published (kept too, so unknown ids do not each read the store). */
  chat: ChatBot | null;
  until: number;
}

export class ChatBotCache {
  private readonly kept: KeptReads<Entry>;

  constructor(private app: AppContext, private load: Loader) {
    this.kept = new KeptReads<Entry>(MAX_BOTS, () => app.clock.now());
  }

  /** The published bot: at once when kept (no promise, no microtask), else once it is read. */
  get(botId: string): ChatBot | null | Promise<ChatBot | null> {
    const read = () => this.load(botId).then((chat) => ({ chat, until: this.app.clock.now() + CHAT_BOT_TTL_MS }));
    const kept = this.kept.kept(botId, read, (err) => this.app.log.warn({ err, botId }, 'reading a published bot again failed'));
    return kept ? kept.chat : this.kept.read(botId, read).then((e) => e.chat);
  }

  /** Whether a bot is kept now (for tests). */
  keeps(botId: string): boolean {
    return this.kept.entries.has(botId);
  }

  /** Forgets the bots of a workspace (null: every bot), and every id that named no published bot. */
  drop(workspaceId: string | null): void {
    this.kept.drop();
    const entries = this.kept.entries;
    if (workspaceId === null) { entries.clear(); return; }
    for (const [id, e] of entries) if (!e.chat || e.chat.bot.workspaceId === workspaceId) entries.delete(id);
  }
}

let parserReady = false;

/**
 * zod compiles a schema's fast path the first time it parses a value (every nested object of the bot config: about
 * 40-70 ms on one core), which a widget connect would otherwise pay, as one task, for the first bot it reads. A
 * complete config (the defaults) parsed once at start-up compiles them all; a config then parses in 1-2 ms.
 */
function compileConfigParser(): void {
  if (parserReady) return;
  parserReady = true;
  BotConfigSchema.parse(BotConfigSchema.parse({}));
}

/** The process's cache (the composition root makes one), dropped with the bots lists. */
export function createChatBotCache(app: AppContext, lists: BotLists, load: Loader): ChatBotCache {
  compileConfigParser();
  const cache = new ChatBotCache(app, load);
  lists.onDrop((workspaceId) => cache.drop(workspaceId));
  return cache;
}
