/**
 * Daily analytics counters, kept up to date from the events bus: one record per workspace, bot and day (plus one
 * per model and one per tool name). A day is a calendar day in the workspace's time zone (settings.timezone) at
 * the time the event is counted; changing the zone later does not move what was already counted. Reports then read a few dozen small records instead of scanning
 * every conversation, so they stay fast however many conversations a workspace holds. Counters are history:
 * erasing a visitor removes their personal data, not the anonymous counts.
 *
 * Increments are gathered in memory and written together (one upsert per workspace, bot and day) at most
 * FLUSH_INTERVAL_MS after the event, before any report is read (idle) and at shutdown: a chat turn then costs
 * no counter write of its own. The events themselves are stored before they reach us, so a crash loses at most
 * the last interval's counts, and they could be rebuilt from the events store (kept a week).
 */
import type { AppContext } from '../app/context.js';
import type { RecordSpecs } from '../app/records.js';
import { workspaceTimezone } from '../auth/settings.js';
import type { TimerHandle } from '../kernel/clock.js';
import type { EventRecord } from '../app/event-bus.js';
import type { Collection, Doc } from '../store/types.js';
import { dayIn } from './period.js';

export const COUNTERS = [
  'conversations', 'visitorMessages', 'replies', 'teamMessages', 'systemMessages', 'leads', 'leadsInConversations',
  'takeovers', 'handoffsRequested', 'handoffsAccepted', 'handoffsResolved', 'thumbsUp', 'thumbsDown', 'csatCount', 'csatSum',
  'toolCalls', 'toolErrors', 'inputTokens', 'outputTokens', 'costUsd', 'conversationsEnded',
] as const;
export type Counter = (typeof COUNTERS)[number];

export interface DailyRecord extends Doc, Partial<Record<Counter, number>> { botId: string; day: string }
export interface ModelDayRecord extends Doc { botId: string; day: string; model: string; replies: number; inputTokens: number; outputTokens: number; costUsd: number }
export interface ToolDayRecord extends Doc {
  botId: string; day: string; name: string; calls: number; errors: number; totalMs: number;
  /** Durations of the day's latest calls (at most DURATION_SAMPLES), for percentiles. */
  durations: number[];
}
/** Percentiles are exact up to this many calls of one tool, bot and day; beyond, over the latest ones. */
export const DURATION_SAMPLES = 1000;
/** Longest time a counted event waits in memory before its counters are written. */
export const FLUSH_INTERVAL_MS = 250;

declare module '../app/records.js' {
  interface Records {
    analyticsDaily: Collection<DailyRecord>;
    analyticsModels: Collection<ModelDayRecord>;
    analyticsTools: Collection<ToolDayRecord>;
  }
}
/** Opened once at start-up (src/records-root.ts). */
export const analyticsRecords = {
  analyticsDaily: { name: 'analytics_daily', indexes: [{ fields: [['workspaceId', 1], ['day', 1]] }] },
  analyticsModels: { name: 'analytics_models', indexes: [{ fields: [['workspaceId', 1], ['day', 1]] }] },
  analyticsTools: { name: 'analytics_tools', indexes: [{ fields: [['workspaceId', 1], ['day', 1]] }] },
} satisfies RecordSpecs<'analyticsDaily' | 'analyticsModels' | 'analyticsTools'>;

const key = (...parts: string[]) => parts.map((p) => p.replace(/[^A-Za-z0-9_.:-]/g, '_')).join('|');

/**
 * Increments are gathered per quarter hour of UTC time and turned into the workspace's days when written (the
 * zone is read then, not on the event's path). Every zone's offset is a whole number of quarter hours, so a
 * quarter hour never straddles two local days.
 */
const SLOT_MS = 15 * 60_000;

/** Where an increment goes: `at` is the start of its quarter hour until write() turns it into a day. */
type Scope = { workspaceId: string; botId: string; at: number };
type DayScope = { workspaceId: string; botId: string; day: string };
type Reply = Scope & { messageId: string };
type ToolCall = Scope & { name: string; isError: boolean; durationMs: number };
type Feedback = Scope & { eventId: string; createdAt: number; data: Record<string, any> };
type Increments = Partial<Record<Counter, number>>;

/** Counter increments not yet written. Adding is synchronous; write() stores them (about one upsert per key). */
class Batch {
  daily = new Map<string, Scope & { inc: Increments }>();
  replies: Reply[] = [];
  tools: ToolCall[] = [];
  feedback: Feedback[] = [];

  get empty(): boolean { return !this.daily.size && !this.replies.length && !this.tools.length && !this.feedback.length; }

  add(e: Pick<EventRecord, 'type' | 'data' | 'workspaceId' | 'createdAt'>): void {
    const d = e.data as Record<string, any>;
    const botId = typeof d.botId === 'string' ? d.botId : null;
    if (!botId) return;
    const s: Scope = { workspaceId: e.workspaceId, botId, at: e.createdAt - (e.createdAt % SLOT_MS) };
    const inc: Increments = {};
    switch (e.type) {
      case 'conversation.started': inc.conversations = 1; break;
      case 'conversation.ended': inc.conversationsEnded = 1; break;
      // A lead added by hand or by API (no conversation) is a lead, not a conversation's outcome.
      case 'lead.captured': inc.leads = 1; if (d.conversationId) inc.leadsInConversations = 1; break;
      // Every takeover, whether it answered a handoff request or not (team/actions.ts; an internal event).
      case 'conversation.taken_over': inc.takeovers = 1; break;
      case 'handoff.requested': inc.handoffsRequested = 1; break;
      case 'handoff.accepted': inc.handoffsAccepted = 1; break;
      // A release without a handoff request (handoffId null) is not a resolved handoff.
      case 'handoff.resolved': if (d.handoffId) inc.handoffsResolved = 1; break;
      case 'feedback.received':
        Object.assign(inc, feedbackIncrements(d, 1));
        // A second rating of the same reply (or conversation) replaces the first: write() takes the first back out.
        if ((e as EventRecord)._id) this.feedback.push({ ...s, eventId: (e as EventRecord)._id, createdAt: e.createdAt, data: d });
        break;
      case 'tool.called':
        inc.toolCalls = 1;
        if (d.isError) inc.toolErrors = 1;
        this.tools.push({ ...s, name: String(d.name), isError: Boolean(d.isError), durationMs: Number(d.durationMs) || 0 });
        break;
      case 'message.created': {
        const role = d.message?.role;
        if (d.message?.visibility === 'internal') return; // team notes are not conversation traffic
        if (role === 'user') inc.visitorMessages = 1;
        else if (role === 'human_agent') inc.teamMessages = 1;
        else if (role === 'system_event') inc.systemMessages = 1;
        // Model, tokens and cost are on the stored message, not in the event: looked up in bulk at write time.
        else if (role === 'assistant') this.replies.push({ ...s, messageId: String(d.message.id) });
        break;
      }
      default: return;
    }
    this.count(s, inc);
  }

  private count(s: Scope, inc: Increments): void {
    if (!Object.keys(inc).length) return;
    const mapKey = `${s.workspaceId}\u0000${s.botId}\u0000${s.at}`;
    let row = this.daily.get(mapKey);
    if (!row) this.daily.set(mapKey, row = { workspaceId: s.workspaceId, botId: s.botId, at: s.at, inc: {} });
    add(row.inc, inc);
  }

  /**
   * Analytics count current ratings: a rating that replaces an earlier one of the same reply (thumbs) or
   * conversation (CSAT) takes the earlier one out, on the day it was counted. Events are kept a week, so a rating
   * replaced after that is counted twice.
   */
  private async unrate(app: AppContext): Promise<void> {
    const events = app.store.collection<EventRecord>('events');
    for (const f of this.feedback) {
      const [prev] = await events.find({
        // Event ids sort by creation (monotonic within a millisecond), so "earlier" is a smaller id.
        workspaceId: f.workspaceId, type: 'feedback.received', _id: { $lt: f.eventId },
        'data.conversationId': f.data.conversationId, 'data.kind': f.data.kind, 'data.messageId': f.data.messageId ?? null,
      } as never, { sort: [['_id', -1]], limit: 1 });
      if (prev) this.count({ workspaceId: f.workspaceId, botId: f.botId, at: prev.createdAt - (prev.createdAt % SLOT_MS) }, feedbackIncrements(prev.data as Record<string, any>, -1));
    }
  }

  async write(app: AppContext): Promise<void> {
    const records = app.records;
    await this.unrate(app);
    const zones = new Map<string, string>();
    for (const ws of new Set([...this.daily.values(), ...this.replies, ...this.tools].map((s) => s.workspaceId))) zones.set(ws, await workspaceTimezone(app, ws));
    const scoped = (s: Scope): DayScope => ({ workspaceId: s.workspaceId, botId: s.botId, day: dayIn(s.at, zones.get(s.workspaceId)!) });
    const models = new Map<string, DayScope & { model: string; replies: number; inputTokens: number; outputTokens: number; costUsd: number }>();
    for (const [workspaceId, list] of groupBy(this.replies, (r) => r.workspaceId)) {
      const found = await app.records.messages.find({ workspaceId, _id: { $in: [...new Set(list.map((r) => r.messageId))] } });
      const byId = new Map(found.map((m) => [m._id, m]));
      for (const r of list) {
        const m = byId.get(r.messageId);
        const model = m?.model ?? 'unknown';
        const input = m?.usage?.inputTokens ?? 0, output = m?.usage?.outputTokens ?? 0, cost = m?.costUsd ?? 0;
        this.count(r, { replies: 1, inputTokens: input, outputTokens: output, costUsd: cost });
        const { day } = scoped(r);
        const mk = `${workspaceId}\u0000${key('am', r.botId, day, model)}`;
        const row = models.get(mk) ?? { workspaceId, botId: r.botId, day, model, replies: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
        row.replies += 1; row.inputTokens += input; row.outputTokens += output; row.costUsd += cost;
        models.set(mk, row);
      }
    }
    for (const r of models.values()) {
      const { workspaceId, botId, day, model, ...inc } = r;
      await records.analyticsModels.updateOne({ workspaceId, _id: key('am', botId, day, model) }, { $inc: inc, $setOnInsert: { botId, day, model } }, { upsert: true });
    }
    // Durations are pushed one at a time (the store pushes one value per update); tool calls are few per turn.
    for (const t of this.tools) {
      const { day } = scoped(t);
      await records.analyticsTools.updateOne(
        { workspaceId: t.workspaceId, _id: key('at', t.botId, day, t.name) },
        {
          $inc: { calls: 1, errors: t.isError ? 1 : 0, totalMs: t.durationMs },
          $push: { durations: { value: t.durationMs, slice: DURATION_SAMPLES } },
          $setOnInsert: { botId: t.botId, day, name: t.name },
        },
        { upsert: true },
      );
    }
    const days = new Map<string, DayScope & { inc: Increments }>();
    for (const r of this.daily.values()) {
      const s = scoped(r);
      const k = `${s.workspaceId}\u0000${key('ad', s.botId, s.day)}`;
      let row = days.get(k);
      if (!row) days.set(k, row = { ...s, inc: {} });
      add(row.inc, r.inc);
    }
    for (const r of days.values()) {
      await records.analyticsDaily.updateOne(
        { workspaceId: r.workspaceId, _id: key('ad', r.botId, r.day) }, { $inc: r.inc, $setOnInsert: { botId: r.botId, day: r.day } }, { upsert: true },
      );
    }
  }
}

/** Counters of one rating; sign -1 takes a replaced rating back out. */
function feedbackIncrements(d: Record<string, any>, sign: 1 | -1): Increments {
  const value = Number(d.value) || 0;
  if (d.kind === 'csat') return { csatCount: sign, csatSum: sign * value };
  return value > 0 ? { thumbsUp: sign } : { thumbsDown: sign };
}

function add(to: Increments, inc: Increments): void {
  for (const [c, n] of Object.entries(inc) as Array<[Counter, number]>) to[c] = (to[c] ?? 0) + n;
}

function groupBy<T>(items: T[], by: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) { const k = by(t); const l = out.get(k); if (l) l.push(t); else out.set(k, [t]); }
  return out;
}

/** Applies one bus event to the counters at once. Exported so the bench can build history the same way. */
export async function applyEvent(app: AppContext, e: Pick<EventRecord, 'type' | 'data' | 'workspaceId' | 'createdAt'>): Promise<void> {
  const b = new Batch();
  b.add(e);
  if (!b.empty) await b.write(app);
}

/** Feeds stored bus events into the counters in batches; `idle()` writes what is gathered and waits for it. */
export class AnalyticsRollup {
  private batch = new Batch();
  private timer: TimerHandle | null = null;
  /** The write under way; batches are written one after another so increments never race. */
  private writing: Promise<void> = Promise.resolve();

  constructor(private app: AppContext) {}

  start(): () => Promise<void> {
    // Stored events only: volatile ones (deltas, typing) reach only listeners that ask for them, so are not counted.
    const unsubscribe = this.app.events.subscribe((event) => {
      this.batch.add(event);
      if (!this.batch.empty && !this.timer) this.timer = this.app.clock.setTimeout(() => { this.timer = null; void this.flush(); }, FLUSH_INTERVAL_MS);
    });
    // At shutdown: stop counting, then write what is gathered (the composition root calls it).
    return async () => { unsubscribe(); await this.idle(); };
  }

  /** Writes the gathered increments; resolves once they (and any earlier write) are stored. */
  flush(): Promise<void> {
    if (this.timer) { this.app.clock.clearTimeout(this.timer); this.timer = null; }
    if (this.batch.empty) return this.writing;
    const b = this.batch;
    this.batch = new Batch();
    this.writing = this.writing.then(() => b.write(this.app))
      .catch((err) => this.app.log.error({ err }, 'analytics counter update failed'));
    return this.writing;
  }

  /** Before a report is read: every event counted so far is in the store. */
  async idle(): Promise<void> {
    await this.flush();
  }
}

