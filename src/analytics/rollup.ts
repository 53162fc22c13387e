/**
 * Daily analytics counters, kept up to date from the events bus: one record per workspace, bot and UTC day
 * (plus one per model and one per tool name). Reports then read a few dozen small records instead of scanning
 * every conversation, so they stay fast however many conversations a workspace holds. Counters are history:
 * erasing a visitor removes their personal data, not the anonymous counts.
 */
import { perApp, type AppContext } from '../app.js';
import { chatCollections, utcDay } from '../chat/records.js';
import type { EventRecord } from '../events/bus.js';
import type { Doc } from '../store/types.js';

export const COUNTERS = [
  'conversations', 'visitorMessages', 'replies', 'teamMessages', 'systemMessages', 'leads',
  'handoffsRequested', 'handoffsAccepted', 'handoffsResolved', 'thumbsUp', 'thumbsDown', 'csatCount', 'csatSum',
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

export const analyticsCollections = perApp((app: AppContext) => ({
  daily: app.store.collection<DailyRecord>('analytics_daily', { indexes: [{ fields: [['workspaceId', 1], ['day', 1]] }] }),
  models: app.store.collection<ModelDayRecord>('analytics_models', { indexes: [{ fields: [['workspaceId', 1], ['day', 1]] }] }),
  tools: app.store.collection<ToolDayRecord>('analytics_tools', { indexes: [{ fields: [['workspaceId', 1], ['day', 1]] }] }),
}));

const key = (...parts: string[]) => parts.map((p) => p.replace(/[^A-Za-z0-9_.:-]/g, '_')).join('|');

/** Applies one bus event to the counters. Exported so the bench can build history the same way. */
export async function applyEvent(app: AppContext, e: Pick<EventRecord, 'type' | 'data' | 'workspaceId' | 'createdAt'>): Promise<void> {
  const d = e.data as Record<string, any>;
  const botId = typeof d.botId === 'string' ? d.botId : null;
  if (!botId) return;
  const day = utcDay(e.createdAt);
  const inc: Partial<Record<Counter, number>> = {};
  switch (e.type) {
    case 'conversation.started': inc.conversations = 1; break;
    case 'conversation.ended': inc.conversationsEnded = 1; break;
    case 'lead.captured': inc.leads = 1; break;
    case 'handoff.requested': inc.handoffsRequested = 1; break;
    case 'handoff.accepted': inc.handoffsAccepted = 1; break;
    // A release without a handoff request (handoffId null) is not a resolved handoff.
    case 'handoff.resolved': if (d.handoffId) inc.handoffsResolved = 1; break;
    case 'feedback.received':
      if (d.kind === 'csat') { inc.csatCount = 1; inc.csatSum = Number(d.value) || 0; } else if (Number(d.value) > 0) inc.thumbsUp = 1; else inc.thumbsDown = 1;
      break;
    case 'tool.called': {
      inc.toolCalls = 1;
      if (d.isError) inc.toolErrors = 1;
      await analyticsCollections(app).tools.updateOne(
        { workspaceId: e.workspaceId, _id: key('at', botId, day, String(d.name)) },
        {
          $inc: { calls: 1, errors: d.isError ? 1 : 0, totalMs: Number(d.durationMs) || 0 },
          $push: { durations: { value: Number(d.durationMs) || 0, slice: DURATION_SAMPLES } },
          $setOnInsert: { botId, day, name: String(d.name) },
        },
        { upsert: true },
      );
      break;
    }
    case 'message.created': {
      const role = d.message?.role;
      if (d.message?.visibility === 'internal') return; // team notes are not conversation traffic
      if (role === 'user') inc.visitorMessages = 1;
      else if (role === 'human_agent') inc.teamMessages = 1;
      else if (role === 'system_event') inc.systemMessages = 1;
      else if (role === 'assistant') {
        inc.replies = 1;
        // Model, tokens and cost are on the stored message, not in the event.
        const m = await chatCollections(app).messages.findById(e.workspaceId, String(d.message.id));
        const model = m?.model ?? 'unknown';
        const input = m?.usage?.inputTokens ?? 0, output = m?.usage?.outputTokens ?? 0, cost = m?.costUsd ?? 0;
        Object.assign(inc, { inputTokens: input, outputTokens: output, costUsd: cost });
        await analyticsCollections(app).models.updateOne(
          { workspaceId: e.workspaceId, _id: key('am', botId, day, model) },
          { $inc: { replies: 1, inputTokens: input, outputTokens: output, costUsd: cost }, $setOnInsert: { botId, day, model } },
          { upsert: true },
        );
      }
      break;
    }
    default: return;
  }
  if (!Object.keys(inc).length) return;
  await analyticsCollections(app).daily.updateOne(
    { workspaceId: e.workspaceId, _id: key('ad', botId, day) }, { $inc: inc, $setOnInsert: { botId, day } }, { upsert: true },
  );
}

/** Feeds stored bus events into the counters; `idle()` waits for updates still being written. */
export class AnalyticsRollup {
  private pending = new Set<Promise<void>>();
  constructor(private app: AppContext) {}

  start(): () => void {
    return this.app.events.subscribe((event, stored) => {
      if (!stored) return; // volatile events (deltas, typing) are not counted
      const p: Promise<void> = applyEvent(this.app, event)
        .catch((err) => this.app.log.error({ err, type: event.type }, 'analytics counter update failed'))
        .finally(() => this.pending.delete(p));
      this.pending.add(p);
    });
  }

  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }
}

export const analyticsRollup = perApp((app: AppContext) => new AnalyticsRollup(app));
