/** chat-speak.js: spoken text replies and the sound button, loaded when appearance.face.textReplies is speak. */
export { bind } from '../chat/preact-bridge.js';
export { SpeakLink, SoundButton, speaksReplies } from '../chat/speak-link.js';
