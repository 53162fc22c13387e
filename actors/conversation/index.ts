export { ConversationService, type StartConversationInput } from './service.js';
export { ConversationActor, toldVisitors, type ConversationState } from './actor.js';
export type { ConversationMsg, ConversationReplies, VisitorMessageReply, ChatRefusal, VoicePort } from './messages.js';
export { LINES } from './reply.js';
