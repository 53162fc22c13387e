/**
 * The inbox's state, shared by its three panes: the conversations (first pages from the API, then kept current
 * from the live socket), who is typing, what the AI is doing, and the unread counts. Unread counts come from
 * what this person has seen (message counts kept in localStorage per user), so they survive a reload.
 */
import { api, query } from '../../api.js';
import type { LiveClient } from '../../live.js';
import type { LiveEvent, LiveEventOf, Page } from '../../types.js';
import { messageOf } from '../../ui.js';
import type { Conv } from './types.js';

export type Filter = 'open' | 'waiting' | 'mine' | 'ended';
export const FILTERS: Array<[Filter, string, string]> = [
  ['open', 'Open', 'Open conversations'], ['waiting', 'Waiting', 'Waiting for a person'], ['mine', 'Mine', 'Taken over by me'], ['ended', 'Ended', 'Ended conversations'],
];

const PAGE = 50;

export function matches(c: Conv, filter: Filter, myId: string, botId: string): boolean {
  if (botId && c.botId !== botId) return false;
  switch (filter) {
    case 'open': return c.status === 'open';
    case 'waiting': return c.status === 'open' && c.handoff?.state === 'requested';
    case 'mine': return c.status === 'open' && c.takenOverBy?.userId === myId;
    case 'ended': return c.status === 'ended';
  }
}

export class InboxModel {
  convs = new Map<string, Conv>();
  nextBefore: string | null = null;
  loaded = false;
  error: string | null = null;
  /** Conversation ids with the visitor typing now. */
  typing = new Set<string>();
  /** What the AI is doing per conversation ("thinking", a tool's label), from agent.status. */
  aiStatus = new Map<string, string>();
  /** The last message's text per conversation, as seen on the socket (the list API has no preview). */
  preview = new Map<string, { role: string; text: string }>();
  /** The conversation open in the middle pane: its new messages are read as they arrive. */
  viewing: string | null = null;
  private seen: Record<string, number>;
  private listeners = new Set<() => void>();
  private refetch: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly live: LiveClient, private readonly me: { id: string; name: string }, private readonly onHandoff: (c: Conv | undefined, e: LiveEventOf<'handoff.requested'>) => void) {
    this.seen = readSeen(me.id);
  }

  start(): () => void {
    this.load();
    let state = this.live.state;
    const off = this.live.subscribe((e) => {
      if (e) { this.apply(e); return; }
      // Back after a drop: events may have been missed, so the list is read again.
      if (this.live.state === 'open' && state !== 'open' && this.loaded) this.load();
      state = this.live.state;
      this.emit();
    });
    return () => { off(); clearTimeout(this.refetch); };
  }

  subscribe(fn: () => void): () => void { this.listeners.add(fn); return () => { this.listeners.delete(fn); }; }

  list(): Conv[] { return [...this.convs.values()].sort((a, b) => b.lastMessageAt - a.lastMessageAt); }

  /** All unread messages of open conversations (the tab title shows it). */
  totalUnread(): number { let n = 0; for (const c of this.convs.values()) if (c.status === 'open') n += this.unread(c); return n; }

  unread(c: Conv): number {
    if (c.id === this.viewing) return 0;
    const seen = this.seen[c.id];
    if (seen === undefined) return c.status === 'open' ? c.messageCount : 0;
    return Math.max(0, c.messageCount - seen);
  }

  markSeen(id: string): void {
    const c = this.convs.get(id);
    if (!c || this.seen[id] === c.messageCount) return;
    this.seen[id] = c.messageCount;
    writeSeen(this.me.id, this.seen);
    this.emit();
  }

  view(id: string | null): void { this.viewing = id; if (id) this.markSeen(id); this.emit(); }

  /** Replaces what is known of one conversation (after an action answered, or its transcript loaded). */
  put(c: Conv): void {
    const old = this.convs.get(c.id);
    this.convs.set(c.id, { ...old, ...c });
    if (c.id === this.viewing) this.markSeen(c.id);
    this.emit();
  }

  async load(): Promise<void> {
    try {
      const p = await api<Page<Conv>>('GET', `/conversations${query({ limit: PAGE })}`);
      for (const c of p.items) this.convs.set(c.id, c);
      if (!this.loaded) this.nextBefore = p.nextBefore;
      this.loaded = true;
      this.error = null;
    } catch (e) { this.error = messageOf(e); }
    this.emit();
  }

  async more(): Promise<void> {
    if (!this.nextBefore) return;
    try {
      const p = await api<Page<Conv>>('GET', `/conversations${query({ limit: PAGE, before: this.nextBefore })}`);
      for (const c of p.items) if (!this.convs.has(c.id)) this.convs.set(c.id, c);
      this.nextBefore = p.nextBefore;
    } catch (e) { this.error = messageOf(e); }
    this.emit();
  }

  private patch(id: string, fn: (c: Conv) => Partial<Conv>): Conv | undefined {
    const c = this.convs.get(id);
    if (!c) return undefined;
    const next = { ...c, ...fn(c) };
    this.convs.set(id, next);
    return next;
  }

  /** A conversation the list does not have yet: read the first page again (once for a burst of events). */
  private soon(): void {
    clearTimeout(this.refetch);
    this.refetch = setTimeout(() => this.load(), 300);
  }

  private apply(e: LiveEvent): void {
    const id = 'conversationId' in e.data ? e.data.conversationId : null;
    if (!id) return;
    const known = this.convs.has(id);
    switch (e.type) {
      case 'conversation.started': this.soon(); break;
      case 'message.created': {
        const m = e.data.message;
        if (!known) { this.soon(); break; }
        const before = this.convs.get(id)!.messageCount;
        this.patch(id, (c) => ({ messageCount: c.messageCount + 1, lastMessageAt: m.createdAt }));
        if (m.visibility !== 'internal') this.preview.set(id, { role: m.role, text: m.text });
        if (m.role === 'user') this.typing.delete(id);
        if (id === this.viewing) this.markSeen(id);
        else if (m.role === 'human_agent' && m.authorName === this.me.name && this.seen[id] === before) {
          // Your own reply or note is read already; what came before it stays unread.
          this.seen[id] = before + 1;
          writeSeen(this.me.id, this.seen);
        }
        break;
      }
      // The changed fields are the conversation's own (the same names as in the list API).
      case 'conversation.updated': this.patch(id, () => e.data.patch as Partial<Conv>); break;
      case 'conversation.ended': this.patch(id, () => ({ status: 'ended', endReason: e.data.reason, handoff: null, takenOverBy: null })); this.typing.delete(id); break;
      case 'handoff.requested': {
        const d = e.data;
        const c = this.patch(id, () => ({ handoff: { id: d.handoffId, state: 'requested', reason: d.reason, summary: d.summary, requestedAt: Date.now() } }));
        if (!c) this.soon();
        this.onHandoff(c, e);
        break;
      }
      case 'handoff.accepted': { const d = e.data; this.patch(id, (c) => ({ handoff: c.handoff ? { ...c.handoff, state: 'accepted' } : null, takenOverBy: { userId: d.userId, userName: d.userName } })); break; }
      case 'handoff.resolved': this.patch(id, () => ({ handoff: null })); break;
      case 'lead.captured': {
        const f = e.data.fields;
        if (f.name || f.email) this.patch(id, (c) => ({ visitor: { name: f.name || c.visitor?.name || null, email: f.email || c.visitor?.email || null } }));
        break;
      }
      case 'visitor.typing': if (e.data.active) this.typing.add(id); else this.typing.delete(id); break;
      case 'agent.status': { const d = e.data; if (d.state === 'idle') this.aiStatus.delete(id); else this.aiStatus.set(id, d.tool?.label ?? d.tool?.name ?? d.state); break; }
      default: return;
    }
    this.emit();
  }

  private emit(): void { for (const fn of this.listeners) fn(); }
}

const seenKey = (userId: string) => `inbox.seen.${userId}`;
function readSeen(userId: string): Record<string, number> {
  try { return JSON.parse(localStorage.getItem(seenKey(userId)) ?? '{}') ?? {}; } catch { return {}; }
}
function writeSeen(userId: string, seen: Record<string, number>): void {
  // Only the latest 500 conversations are remembered; older ones count as read.
  const keys = Object.keys(seen);
  if (keys.length > 500) for (const k of keys.slice(0, keys.length - 500)) delete seen[k];
  try { localStorage.setItem(seenKey(userId), JSON.stringify(seen)); } catch { /* private mode: counts last this visit */ }
}
