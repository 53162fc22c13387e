/**
 * The team's actions on a conversation (service-api.md, Conversations: takeover, messages, typing, release).
 * Each goes through the conversation's actor (actors/conversation), the one writer of its record; the handoff
 * side (accepted / resolved) is this area's.
 */
import type { AppContext } from '../app/context.js';
import type { SessionPrincipal } from '../auth/sessions.js';
import { type ConversationRecord, type PublicMessage } from '../records/conversations.js';
import { conflict, notFound } from '../kernel/errors.js';
import { acceptHandoff, resolveHandoff } from './handoff.js';
import type { TeamServices } from './services.js';

type Person = Pick<SessionPrincipal, 'workspaceId' | 'userId' | 'userName'>;

async function load(app: AppContext, workspaceId: string, id: string): Promise<ConversationRecord> {
  const conv = await app.records.conversations.findById(workspaceId, id);
  if (!conv) throw notFound('conversation');
  return conv;
}

/** Shown to the visitor so they know a person is writing now (and when the assistant is back). */
export const joinedLine = (name: string) => `${name} joined the conversation.`;
export const leftLine = (name: string) => `${name} left the conversation.`;

export interface TakeoverOutcome {
  conversationId: string;
  takenOverBy: { userId: string; userName: string };
  /** False when this person had the conversation already: nothing changed (and nothing is audited). */
  changed: boolean;
}

/**
 * Takes the conversation over: the AI goes quiet. Taking over again as the same person is a no-op; someone
 * else's takeover must be released first (409), so two people never answer at once.
 */
export async function takeover(app: AppContext, team: TeamServices, who: Person, conversationId: string): Promise<TakeoverOutcome> {
  const conv = await load(app, who.workspaceId, conversationId);
  if (conv.status !== 'open') throw conflict('this conversation has ended');
  const me = { userId: who.userId, userName: who.userName };
  if (conv.takenOverBy && conv.takenOverBy.userId !== who.userId) throw conflict(`${conv.takenOverBy.userName} has taken this conversation over; they must release it first`);
  if (conv.takenOverBy) return { conversationId: conv._id, takenOverBy: me, changed: false };
  // The record read above may be stale: the actor has the last word on who took it over first.
  const took = await team.conversations.ask(conv._id, { type: 'takeover', ...me });
  if (took.takenOverBy.userId !== who.userId) throw conflict(`${took.takenOverBy.userName} has taken this conversation over; they must release it first`);
  if (took.changed) {
    const handoff = await acceptHandoff(app, team, conv, me);
    // Stored for analytics ("taken over" counts every takeover); not a webhook or live-socket event.
    await app.events.publish(conv.workspaceId, 'conversation.taken_over', { botId: conv.botId, conversationId: conv._id, userId: me.userId, handoffId: handoff?._id ?? null });
    await team.conversations.ask(conv._id, { type: 'systemLine', text: joinedLine(who.userName) });
  }
  return { conversationId: conv._id, takenOverBy: me, changed: took.changed };
}

/** Hands back to the AI (handback): handoff.resolved by this user. */
export async function release(app: AppContext, team: TeamServices, who: Person, conversationId: string): Promise<{ conversationId: string; takenOverBy: null }> {
  const conv = await load(app, who.workspaceId, conversationId);
  if (!conv.takenOverBy) throw conflict('this conversation is not taken over');
  await team.conversations.ask(conv._id, { type: 'release', by: who.userId });
  await resolveHandoff(app, team, conv, who.userId);
  if (conv.status === 'open') await team.conversations.ask(conv._id, { type: 'systemLine', text: leftLine(conv.takenOverBy.userName) });
  return { conversationId: conv._id, takenOverBy: null };
}

/**
 * A reply as yourself (role human_agent, authorName) or an internal note (visibility internal: never sent to
 * the visitor nor in message.created webhooks). A visible reply to a conversation the AI is answering takes it
 * over first, so the AI does not talk over the person.
 */
export async function teamMessage(
  app: AppContext, team: TeamServices, who: Person, conversationId: string, input: { text: string; internal: boolean },
): Promise<{ message: PublicMessage; tookOver: boolean }> {
  const conv = await load(app, who.workspaceId, conversationId);
  let tookOver = false;
  if (!input.internal) {
    if (conv.status !== 'open') throw conflict('this conversation has ended; add an internal note instead');
    if (conv.takenOverBy && conv.takenOverBy.userId !== who.userId) throw conflict(`${conv.takenOverBy.userName} has taken this conversation over`);
    if (!conv.takenOverBy) tookOver = (await takeover(app, team, who, conversationId)).changed;
  }
  const message = await team.conversations.ask(conv._id, { type: 'teamMessage', userId: who.userId, authorName: who.userName, text: input.text, internal: input.internal });
  // The actor announces visible messages only; the team still sees its notes arrive on the live socket.
  // Webhooks never carry them (isDeliverable drops internal messages).
  if (input.internal) await app.events.publish(conv.workspaceId, 'message.created', { botId: conv.botId, conversationId: conv._id, message });
  return { message, tookOver };
}

/** Shows the visitor (or stops showing) that this person is typing. */
export async function teamTyping(app: AppContext, team: TeamServices, who: Person, conversationId: string, active: boolean): Promise<void> {
  const conv = await load(app, who.workspaceId, conversationId);
  if (conv.status !== 'open') throw conflict('this conversation has ended');
  team.conversations.send(conv._id, { type: 'teamTyping', active, authorName: who.userName });
}
