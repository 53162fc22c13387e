/**
 * The voice client (voice.js), loaded by the chat UI only when the visitor starts voice. It carries the
 * microphone capture, the player and both AudioWorklet processors; the chat bundle keeps only the UI.
 */
import { VoiceClient, type VoiceDeps } from './voice/client.js';

export type { VoiceClient, VoiceDeps, VoiceMode, VoiceSnapshot, VoiceState } from './voice/client.js';

export function createVoiceClient(deps: VoiceDeps): VoiceClient {
  return new VoiceClient(deps);
}
