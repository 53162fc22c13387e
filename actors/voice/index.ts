export { VoiceSessionActor, VoiceRefusedError, type VoiceSink } from './actor.js';
export { VoiceService, type VoiceSocket } from './service.js';
export type { VoiceMsg } from './messages.js';
