/**
 * The voice client (voice.js), loaded by the chat UI only when the visitor starts voice. It carries the
 * microphone capture, the player and both AudioWorklet processors; the chat bundle keeps only the UI.
 */
import { VoiceClient, type VoiceDeps } from './voice/client.js';
import { Player, type PlayerEvents } from './voice/player.js';
import { loadWorklets } from './voice/worklets.js';

export type { VoiceClient, VoiceDeps, VoiceMode, VoiceSnapshot, VoiceState } from './voice/client.js';
export type { Player, PlayerEvents } from './voice/player.js';

export function createVoiceClient(deps: VoiceDeps): VoiceClient {
  return new VoiceClient(deps);
}

/**
 * A player for spoken text replies (no microphone, no session): the same worklet player and jitter buffer,
 * made once the worklets are loaded into `ctx`.
 */
export async function createSpeechPlayer(ctx: AudioContext, rate: number, on: PlayerEvents): Promise<Player> {
  await loadWorklets(ctx);
  return new Player(ctx, rate, on);
}
