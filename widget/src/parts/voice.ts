/** chat-voice.js: the chat's voice UI (the microphone, the voice bar, their CSS), loaded when cfg.voice.enabled. */
export { bind } from '../chat/preact-bridge.js';
export { VoiceLink } from '../chat/voice-link.js';
export { MicButton, useVoice, VoiceBar } from '../chat/voice-bar.js';
export { voiceCss } from '../chat/voice-styles.js';
