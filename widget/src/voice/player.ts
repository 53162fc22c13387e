/**
 * The agent's voice: the sc-player worklet (jitter buffer, resampling, per-item progress) behind a small
 * main-thread handle. Tells its owner when playback starts and stops, the output level (for the meter and,
 * later, the face's lip sync), and when an item has played to its end.
 */
import { levelOf } from './capture.js';

/** Playback begins once this much audio is buffered (or the item is complete): fast start, few stalls. */
export const START_MS = 60;

export interface PlayerEvents {
  state(playing: boolean): void;
  level(level: number): void;
  /** Item `item` played to its end: `ms` of it were heard. */
  done(item: string, ms: number): void;
}

export class Player {
  playing = false;
  level = 0;
  private readonly node: AudioWorkletNode;
  /** The latest known played ms per item, for voice_played about an item that is no longer current. */
  private readonly heard = new Map<string, number>();
  private stopping: Array<(r: { item: string | null; ms: number }) => void> = [];

  constructor(ctx: AudioContext, rate: number, private readonly on: PlayerEvents) {
    this.node = new AudioWorkletNode(ctx, 'sc-player', {
      numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1], processorOptions: { rate, startMs: START_MS },
    });
    this.node.port.onmessage = (e) => this.onMessage(e.data);
    this.node.connect(ctx.destination);
  }

  private onMessage(m: any) {
    if (m.item) this.heard.set(m.item, m.ms);
    if (m.t === 'level') this.setLevel(levelOf(m.rms));
    else if (m.t === 'state') {
      this.playing = m.playing;
      if (!m.playing) this.setLevel(0);
      this.on.state(m.playing);
    } else if (m.t === 'done') this.on.done(m.item, m.ms);
    else if (m.t === 'stopped') this.stopping.shift()?.(m);
  }

  private setLevel(l: number) {
    if (l === this.level) return;
    this.level = l;
    this.on.level(l);
  }

  /** PCM16 LE at the output rate, for `item` (the buffer is handed over). */
  push(item: string, pcm: ArrayBuffer) { this.node.port.postMessage({ t: 'audio', item, pcm }, [pcm]); }

  /** No more audio will come for `item`: play what is buffered, then report it done. */
  end(item: string) { this.node.port.postMessage({ t: 'end', item }); }

  /** Silence from the next render quantum on; resolves with the item that was playing and its ms heard. */
  stop(): Promise<{ item: string | null; ms: number }> {
    return new Promise((resolve) => {
      this.stopping.push(resolve);
      this.node.port.postMessage({ t: 'stop' });
    });
  }

  /** How many ms of `item` were played (0 when none). */
  msOf(item: string): number { return this.heard.get(item) ?? 0; }

  close() {
    this.node.port.onmessage = null;
    this.node.disconnect();
    for (const r of this.stopping.splice(0)) r({ item: null, ms: 0 });
  }
}
