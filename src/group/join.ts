import type { AppContext } from '../app/context.js';
import type { AccessEnded, AccessEndings } from '../auth/access-ended.js';
import type { CredentialCache } from '../auth/credential-cache.js';
import type { BotLists } from '../bots/list-cache.js';
import type { ChatHub } from '../conversation/hub.js';
import type { EventRecord } from '../app/event-bus.js';
import type { WebhookService } from '../events/webhooks/index.js';
import { liveFrame, type LiveHub } from '../team/live-hub.js';
import { waitingHandoffs, type WorkspaceActors } from '../team/workspace.js';
import { addSampler, sampled } from '../metrics/registry.js';
import type { ScaleNode } from '../scale/node.js';
import { CrossBatch } from '../scale/cross-batch.js';
import { channel, WorkspaceInterest } from '../scale/interest.js';
import { startGroupPresence } from '../scale/presence.js';
import { RemoteReplies, replyMark } from './remote-replies.js';

/**
 * What crosses at once (src/scale/cross-batch.ts): what a person waits for from another person, a team member's
 * message and a handoff's steps (issue 25's crossing target), and the end of a reply (the agent idle again: its
 * stored answer went just before), which takes the turn's waiting events with it instead of waiting for the
 * window's timer. Everything else (a chat turn's events: the visitor's message, the reply's status and text)
 * may wait for the batch's window and go as one.
 */
export const crossesAtOnce = (event: Pick<EventRecord, 'type' | 'data'>) => event.type.startsWith('handoff.')
  || (event.type === 'agent.status' && event.data.state === 'idle')
  || (event.type === 'message.created' && (event.data.message as { role?: string } | undefined)?.role === 'human_agent');

/** How often a workspace whose events cross without answers has its listeners counted (to forget a dead watcher). */
const LISTENERS_COUNTED_EVERY_MS = 1000;
/** How often each process of a group arms the handoffs waiting in the store (a dead process's included). */
const HANDOFF_WAKE_MS = 5000;

type Invalidation =
  | { k: 'token'; hash: string }
  | { k: 'access'; e: AccessEnded }
  | { k: 'webhooks'; workspaceId: string }
  | { k: 'bots'; workspaceId: string | null }
  /** Handled by the lexical replica (src/knowledge/lexical-replica.ts), which listens on the same channel. */
  | { k: 'lexical' };

/**
 * Wires this process into its group (before any module starts): its stored and volatile events go to the
 * processes with live sockets of their workspace, its widget frames to their open widgets, and cache
 * invalidations both ways.
 * Durable follow-ups (webhooks, analytics, handoff closing) stay with the process that stored the event.
 */
/** The services the group's messages reach (the composition root made them). */
export interface GroupServices {
  liveHub: LiveHub;
  chatHub: ChatHub;
  credentials: CredentialCache;
  webhooks: WebhookService;
  botLists: BotLists;
  workspaceActors: WorkspaceActors;
  accessEndings: AccessEndings;
}

export function joinGroup(app: AppContext, node: ScaleNode, services: GroupServices): void {
  // A workspace's events (stored and streamed) cross only to the processes that watch it (hold live sockets of
  // it), on its own channel, as the live sockets' frames (encoded once, here; the other process sends them on
  // unparsed), batched (src/scale/cross-batch.ts): a chat turn's events go in one or two messages, a team
  // member's message at once. Events the live socket does not carry do not cross. Types some listener needs from
  // every process whatever it watches (bot.published: the widgets open here) go to the whole group as events.
  const live = services.liveHub;
  const interest = new WorkspaceInterest(node, (workspaceId, frames) => {
    for (const frame of frames) live.sendFrame(workspaceId, frame);
  }, (workspaceId) => live.count(workspaceId));
  live.beforeOpen = (workspaceId) => interest.watch(workspaceId);
  const changed = (workspaceId: string) => interest.changed(workspaceId);
  live.onChange.add(changed);
  const outbox = new Map<string, string[]>();
  /** When each workspace's listeners were last counted after a publish without an answer. */
  const countedAt = new Map<string, number>();
  const batch = new CrossBatch(() => {
    const mark = interest.mark();
    const heard = (workspaceId: string) => (n: number) => interest.published(workspaceId, n, mark);
    const away = () => { /* Redis away: events do not cross meanwhile */ };
    for (const [workspaceId, frames] of outbox) {
      const name = channel(workspaceId);
      if (!node.publishLinesQuietly(name, frames)) { node.publishLines(name, frames).then(heard(workspaceId), away); continue; }
      // Sent without an answer: whether any process still listens (a watcher died) is asked at most once a second.
      const now = performance.now();
      if (now - (countedAt.get(workspaceId) ?? -Infinity) < LISTENERS_COUNTED_EVERY_MS) continue;
      if (countedAt.size >= 10_000) countedAt.clear();
      countedAt.set(workspaceId, now);
      node.listeners(name).then(heard(workspaceId), away);
    }
    outbox.clear();
  });
  app.events.setRelay((event, volatile) => {
    if (!volatile && app.events.groupWide(event.type)) return node.broadcast('ev', { e: event, v: false });
    if (!node.healthy || !interest.othersWatch(event.workspaceId)) return;
    const frame = liveFrame(event);
    if (!frame) return;
    const frames = outbox.get(event.workspaceId);
    if (frames) frames.push(frame); else outbox.set(event.workspaceId, [frame]);
    batch.due(crossesAtOnce(event));
  });
  node.on('ev', (m: { e: EventRecord; v: boolean }) => app.events.deliverRemote(m.e, m.v));
  void interest.hello();

  // Widget frames go only to the processes with a widget open on their conversation, which tell the
  // conversation's owner alone when they open or close one (src/scale/conversation-watchers.ts). Frames about a
  // streaming reply say which (r, on) and where it is written (n), so the other processes can tell their widgets
  // when that process dies before finishing it.
  const hub = services.chatHub;
  const remoteReplies = new RemoteReplies(node, hub);
  const watchers = node.watchers;
  hub.onWatch = (conversationId, open) => watchers.watch(conversationId, open);
  hub.relay = (conversationId, frame, text, replyId) => {
    const mark = replyMark(frame, replyId);
    // A team member's message crosses at once; a chat turn's frames may wait for the batch's window.
    watchers.send(conversationId, { c: conversationId, t: frame.t, x: text, ...(mark ? { ...mark, n: node.id } : {}) }, frame.t === 'message' && frame.message.role === 'human_agent');
  };
  void watchers.listen((m) => {
    if (m.r !== undefined && m.n && hub.openCount(m.c)) remoteReplies.seen(m.c, m.n, { r: m.r, on: !!m.on });
    hub.deliver(m.c, m.t, m.x);
  });

  node.on('inv', (m: Invalidation) => {
    switch (m.k) {
      case 'token': services.credentials.tokens.delete(m.hash); return;
      case 'access': services.accessEndings.here(m.e); return;
      case 'webhooks': services.webhooks.dispatcher.invalidate(m.workspaceId, true); return;
      case 'bots': services.botLists.drop(m.workspaceId); return;
      case 'lexical': return;
    }
  });
  startGroupPresence(app, node, live);
  app.onClose(addSampler(() => { sampled.coordinationUp.set(node.healthy ? 1 : 0); }));
  // Durable timers: a handoff waiting for acceptance is armed by every process of the group (each process's
  // workspace actor re-arms waiting handoffs from the store), so its deadline fires even when the process that
  // asked for it died; the first to fire marks it (a conditional update) and the others find it done.
  const stopWaking = node.heartbeat.every(HANDOFF_WAKE_MS, () => { if (node.healthy) armWaitingHandoffs(app, services.workspaceActors).catch((err) => app.log.warn({ err }, 'arming waiting handoffs failed')); });
  app.onClose(() => { stopWaking(); batch.flush(); remoteReplies.close(); interest.close(); app.events.setRelay(null); hub.relay = null; hub.onWatch = null; live.beforeOpen = null; live.onChange.delete(changed); });
}

/** Arms every waiting handoff's deadline on this process (setting a timer again replaces it). */
async function armWaitingHandoffs(app: AppContext, workspaceActors: WorkspaceActors): Promise<void> {
  for await (const h of waitingHandoffs(app)) {
    workspaceActors.get(h.workspaceId).send({ type: 'armHandoff', conversationId: h.conversationId, handoffId: h._id, dueAt: h.deadlineAt });
  }
}
