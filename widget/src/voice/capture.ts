/**
 * The microphone: getUserMedia with the browser's echo cancellation, noise suppression and gain control,
 * fed into the sc-capture worklet, which posts 20 ms PCM16 frames at the session's inputRate.
 */

/** Why the microphone could not be opened (the chat turns each into a message that says what to do). */
export type MicProblem = 'permission_denied' | 'no_microphone' | 'mic_busy' | 'unsupported';

export class MicError extends Error {
  constructor(readonly reason: MicProblem) { super(reason); }
}

export async function openMic(): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) throw new MicError('unsupported');
  try {
    return await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
  } catch (err) {
    const name = (err as Error)?.name;
    throw new MicError(name === 'NotAllowedError' || name === 'SecurityError' ? 'permission_denied'
      : name === 'NotReadableError' || name === 'AbortError' ? 'mic_busy' : 'no_microphone');
  }
}

export class Capture {
  private readonly src: MediaStreamAudioSourceNode;
  private readonly node: AudioWorkletNode;

  constructor(ctx: AudioContext, private readonly stream: MediaStream, rate: number, onFrame: (pcm: Int16Array) => void) {
    this.src = ctx.createMediaStreamSource(stream);
    // No outputs: Chromium pulls an output-less worklet node by itself, and nothing of the mic reaches the speakers.
    this.node = new AudioWorkletNode(ctx, 'sc-capture', {
      numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit', processorOptions: { rate },
    });
    this.node.port.onmessage = (e) => onFrame(new Int16Array(e.data as ArrayBuffer));
    this.src.connect(this.node);
  }

  close() {
    this.node.port.onmessage = null;
    this.src.disconnect();
    this.node.disconnect();
    for (const t of this.stream.getTracks()) t.stop();
  }
}

/** Loudness 0..1 of PCM16 samples: RMS on a -50..0 dBFS scale (speech sits around the middle). */
export function levelOf(rms: number): number {
  return rms <= 0 ? 0 : Math.max(0, Math.min(1, (20 * Math.log10(rms) + 50) / 50));
}

export function rmsOf(pcm: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i] * pcm[i];
  return pcm.length ? Math.sqrt(sum / pcm.length) / 32768 : 0;
}
