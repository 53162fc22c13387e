/**
 * Handoff to a person (service-api.md, States: Handoff; bot-config.md, behavior.handoff / hours / leadCapture).
 * requested -> accepted (a takeover) -> resolved (a release); or requested -> unanswered when nobody takes it
 * within acceptTimeoutSec, or nobody is available at all, and then the offline flow runs.
 */
import { fieldsLeftToAsk } from '../leads/known.js';
import type { AppContext } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import { loadBotForChat } from '../bots/bot-source.js';
import type { ServerFrame } from '../conversation/protocol.js';
import { type ConversationRecord } from '../records/conversations.js';
import { leadFormFrame, type LeadField, type LeadFormReason } from '../leads/form.js';
import { newId } from '../store/ids.js';
import type { ToolSource } from '../tools/registry.js';
import { isOpen, offlineText } from '../bots/hours.js';
import { type HandoffRecord } from '../records/handoffs.js';
import { summarize } from './summary.js';
import { availableAgents } from './workspace.js';
import type { TeamServices } from './services.js';

export type HandoffOutcome =
  | { ok: true; handoff: HandoffRecord; available: boolean }
  | { ok: false; code: 'not_found' | 'forbidden' | 'ended'; message: string };

/** The open handoff of a conversation (requested or accepted), if any. */
export function openHandoff(app: AppContext, workspaceId: string, conversationId: string): Promise<HandoffRecord | null> {
  return app.records.handoffs.findOne({ workspaceId, conversationId, state: { $in: ['requested', 'accepted'] } });
}

/** The rendered texts.offline of a bot. */

/** Shows the visitor the lead form (a lead_form frame; the widget answers with { t: 'lead', fields }). */
export async function showLeadForm(app: AppContext, team: TeamServices, conv: ConversationRecord, config: BotConfig, reason: LeadFormReason): Promise<void> {
  // Only what the visitor has not told us yet (the start form, an earlier lead); nothing left: no form.
  const fields = await fieldsLeftToAsk(app, conv, config.behavior.leadCapture.fields as LeadField[]);
  if (!fields.length) return;
  const conversationId = conv._id;
  const frame = leadFormFrame(conversationId, reason, fields);
  // lead_form is this area's frame; the chat protocol's ServerFrame union does not list it yet.
  team.conversations.pushToVisitor(conversationId, frame as unknown as ServerFrame);
}

/**
 * Nobody can take the conversation: the visitor gets texts.offline as a system line, and with
 * offlineAction lead_form also the lead form (message and none show only the text, as the spec says).
 */
export async function runOfflineFlow(app: AppContext, team: TeamServices, conv: ConversationRecord, config: BotConfig, untold?: () => Promise<void>): Promise<void> {
  try {
    await team.conversations.ask(conv._id, { type: 'systemLine', text: offlineText(config) });
  } catch (err) {
    await untold?.();
    throw err;
  }
  if (config.behavior.handoff.offlineAction === 'lead_form') await showLeadForm(app, team, conv, config, 'offline');
}

/**
 * The agent (handoff_to_human) or the visitor (chat menu) asks for a person. A second request while one is
 * open returns that one. Publishes handoff.requested with a summary of the conversation so far; then either
 * waits acceptTimeoutSec for a takeover, or, when nobody is available (outside hours, nobody online with the
 * admin panel open), goes straight to the offline flow.
 */
export async function requestHandoff(
  app: AppContext,
  team: TeamServices,
  input: { conversationId: string; reason: string | null; source: 'agent' | 'visitor'; config?: BotConfig },
): Promise<HandoffOutcome> {
  const conv = await app.records.conversations.findOne({ _id: input.conversationId }, { crossWorkspace: true });
  if (!conv) return { ok: false, code: 'not_found', message: 'conversation not found' };
  if (conv.status !== 'open') return { ok: false, code: 'ended', message: 'this conversation has ended' };
  const config = input.config ?? (await loadBotForChat(app, conv.botId, { version: conv.configVersion }))?.config;
  if (!config) return { ok: false, code: 'not_found', message: 'bot not found' };
  if (!config.behavior.handoff.enabled) return { ok: false, code: 'forbidden', message: 'handoff is off for this bot (behavior.handoff.enabled)' };

  const existing = await openHandoff(app, conv.workspaceId, conv._id);
  if (existing) return { ok: true, handoff: existing, available: existing.state === 'accepted' || existing.deadlineAt > app.clock.now() };

  const now = app.clock.now();
  const messages = await app.records.messages.find({ workspaceId: conv.workspaceId, conversationId: conv._id }, { sort: [['seq', -1]], limit: 40 });
  const handoff: HandoffRecord = {
    _id: newId('hof', now), workspaceId: conv.workspaceId, botId: conv.botId, conversationId: conv._id, state: 'requested',
    source: input.source, reason: input.reason?.trim() || null, summary: summarize(messages.reverse()),
    requestedAt: now, deadlineAt: now + config.behavior.handoff.acceptTimeoutSec * 1000,
    acceptedBy: null, acceptedAt: null, resolvedAt: null, resolvedBy: null, unansweredReason: null,
  };
  await app.records.handoffs.insertOne(handoff);
  await app.events.publish(conv.workspaceId, 'handoff.requested', {
    botId: conv.botId, conversationId: conv._id, handoffId: handoff._id, reason: handoff.reason, summary: handoff.summary,
  });

  const lc = config.behavior.leadCapture;
  const open = isOpen(config.behavior.hours, now);
  const available = open && (await availableAgents(team.workspaceActors, conv.workspaceId)).length > 0;
  if (!available) {
    await markUnanswered(app, handoff, open ? 'nobody_available' : 'closed_hours');
    await runOfflineFlow(app, team, conv, config);
    return { ok: true, handoff: { ...handoff, state: 'unanswered' }, available: false };
  }
  if (lc.enabled && lc.when === 'before_handoff') await showLeadForm(app, team, conv, config, 'before_handoff');
  team.workspaceActors.get(conv.workspaceId).send({ type: 'armHandoff', conversationId: conv._id, handoffId: handoff._id, dueAt: handoff.deadlineAt });
  return { ok: true, handoff, available: true };
}

async function markUnanswered(app: AppContext, h: HandoffRecord, why: string): Promise<boolean> {
  const r = await app.records.handoffs.updateOne({ workspaceId: h.workspaceId, _id: h._id, state: 'requested' }, { $set: { state: 'unanswered', unansweredReason: why } });
  return !!r;
}

/** A visitor who could not be told that nobody took their handoff is told on the next try, this much later. */
const RETELL_MS = 5000;

/** The wait ended (workspace actor timer): if nobody took it, the visitor is told and the offline action applies. */
export async function handoffTimedOut(app: AppContext, team: TeamServices, workspaceId: string, conversationId: string, handoffId: string): Promise<void> {
  const h = await app.records.handoffs.findById(workspaceId, handoffId);
  if (!h || h.state !== 'requested' || !(await markUnanswered(app, h, 'timeout'))) return;
  const conv = await app.records.conversations.findById(workspaceId, conversationId);
  if (!conv || conv.status !== 'open' || conv.takenOverBy) return;
  const chat = await loadBotForChat(app, conv.botId, { version: conv.configVersion });
  if (!chat) return;
  await runOfflineFlow(app, team, conv, chat.config, async () => {
    // The visitor was not told (in a group: the conversation's process could not be reached in time): the wait is
    // open again and fires again shortly, here or on any process of the group, so the notice is not lost.
    await app.records.handoffs.updateOne({ workspaceId, _id: h._id, state: 'unanswered' }, { $set: { state: 'requested', unansweredReason: null } });
    team.workspaceActors.get(workspaceId).send({ type: 'armHandoff', conversationId, handoffId, dueAt: app.clock.now() + RETELL_MS });
  });
}

/** A takeover accepts the conversation's requested handoff (handoff.accepted); no-op without one. */
export async function acceptHandoff(app: AppContext, team: TeamServices, conv: ConversationRecord, user: { userId: string; userName: string }): Promise<HandoffRecord | null> {
  const now = app.clock.now();
  const h = await app.records.handoffs.updateOne(
    { workspaceId: conv.workspaceId, conversationId: conv._id, state: 'requested' },
    { $set: { state: 'accepted', acceptedBy: user, acceptedAt: now } },
  );
  if (!h) return null;
  team.workspaceActors.get(conv.workspaceId).send({ type: 'cancelHandoff', conversationId: conv._id });
  await app.events.publish(conv.workspaceId, 'handoff.accepted', {
    botId: conv.botId, conversationId: conv._id, handoffId: h._id, userId: user.userId, userName: user.userName,
  });
  return h;
}

/**
 * A release hands back to the agent: handoff.resolved, by the releasing user. handoffId is null when the
 * takeover did not answer a handoff request (the spec allows null).
 */
export async function resolveHandoff(app: AppContext, team: TeamServices, conv: ConversationRecord, userId: string): Promise<HandoffRecord | null> {
  const now = app.clock.now();
  const h = await app.records.handoffs.updateOne(
    { workspaceId: conv.workspaceId, conversationId: conv._id, state: { $in: ['accepted', 'requested'] } },
    { $set: { state: 'resolved', resolvedAt: now, resolvedBy: userId } },
  );
  if (h) team.workspaceActors.get(conv.workspaceId).send({ type: 'cancelHandoff', conversationId: conv._id });
  await app.events.publish(conv.workspaceId, 'handoff.resolved', { botId: conv.botId, conversationId: conv._id, handoffId: h?._id ?? null, by: userId });
  return h;
}

/**
 * A conversation that ends closes its handoff quietly: a waiting one will not time out into an offline flow,
 * an accepted one is over (no handoff.resolved: nobody handed it back).
 */
export async function closeHandoffsOf(app: AppContext, team: TeamServices, workspaceId: string, conversationId: string): Promise<void> {
  const now = app.clock.now();
  const open = await app.records.handoffs.find({ workspaceId, conversationId, state: { $in: ['requested', 'accepted'] } });
  if (!open.length) return;
  team.workspaceActors.get(workspaceId).send({ type: 'cancelHandoff', conversationId });
  for (const h of open) {
    await app.records.handoffs.updateOne({ workspaceId, _id: h._id, state: h.state }, h.state === 'requested'
      ? { $set: { state: 'unanswered', unansweredReason: 'ended' } }
      : { $set: { state: 'resolved', resolvedAt: now, resolvedBy: null } });
  }
}

/** handoff_to_human: offered when behavior.handoff.enabled and not switched off in tools.builtins. */
export const handoffToolSource = (team: TeamServices): ToolSource => ({
  name: 'handoff',
  tools(ctx) {
    if (!ctx.config?.behavior?.handoff?.enabled || ctx.config?.tools?.builtins?.handoff_to_human === false) return [];
    return [{
      name: 'handoff_to_human',
      description: 'Ask a person from the team to take over this conversation, when the visitor asks for one or you cannot help.',
      parameters: { type: 'object', properties: { reason: { type: 'string', description: 'Why a person is needed, in one sentence.' } }, additionalProperties: false },
      source: 'builtin',
      label: 'Asking a team member',
      async run(args, ctx) {
        const r = await requestHandoff(ctx.app, team, { conversationId: ctx.conversationId, reason: typeof args.reason === 'string' ? args.reason.slice(0, 500) : null, source: 'agent', config: ctx.config });
        if (!r.ok) return { content: `Could not ask for a person: ${r.message}.`, isError: true };
        // The widget shows the agent's request as it shows the visitor's (the same frame).
        team.conversations.pushToVisitor(ctx.conversationId, { t: 'handoff', handoffId: r.handoff._id, available: r.available });
        return r.available
          ? { content: 'A team member has been asked to join. Tell the visitor someone will be with them shortly.' }
          : { content: 'Nobody from the team is available right now; the visitor has been told and offered to leave their details. Keep helping if you can.' };
      },
    }];
  },
});
