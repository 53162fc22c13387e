export { VoiceSessionActor, VoiceRefusedError, type VoiceSink } from './actor.js';
export { voiceSessions, VoiceService, type VoiceSocket } from './service.js';
export type { VoiceMsg } from './messages.js';
