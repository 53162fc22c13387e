import type { BotConfig } from '../../src/bots/config/index.js';
import type { VoiceEndReason } from '../../src/conversation/voice-frames.js';

/** What the visitor reads when voice ends (the widget shows it; texts.strings can override the widget's own). */
export function endMessage(reason: VoiceEndReason, config: BotConfig): string {
  switch (reason) {
    case 'visitor': return 'Voice ended. You can keep chatting here.';
    case 'max_duration': return `Voice conversations end after ${config.voice.maxSessionMinutes} minutes. Tap the microphone to talk again, or keep typing.`;
    case 'idle': return 'Voice ended after a silence. Tap the microphone to talk again, or keep typing.';
    case 'cap_reached': return 'Voice is not available any more today. You can keep chatting by text.';
    case 'team_takeover': return 'A team member has joined. Voice is off; please continue in the chat.';
    case 'conversation_ended': return 'The conversation has ended.';
    case 'unavailable': return 'Voice is not available right now. Please continue here in the chat.';
    case 'engine_error': return 'The voice connection failed. Please try again, or keep chatting by text.';
    case 'socket_closed': return 'Voice ended because the connection was lost.';
  }
}
