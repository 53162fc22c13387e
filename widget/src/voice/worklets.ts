/**
 * The two AudioWorklet processors, shipped inside voice.js and loaded through a Blob URL (a worklet module
 * must be a separate script; a Blob keeps it one file and passes CSPs that allow blob: for worklets).
 * Each processor is written as a self-contained function whose source text becomes the module: it may use
 * nothing from outside its own body (and no class fields, which esbuild would lower to outside helpers).
 *
 * sc-capture: microphone at the context rate -> low-pass -> linear resample to the session's inputRate ->
 *   20 ms Int16 frames posted to the main thread (buffer transferred).
 * sc-player: Int16 chunks at outputRate in, tagged with the agent's item id; a jitter buffer that starts
 *   after ~60 ms, plays gaplessly (one interpolator across chunk boundaries), resamples to the context rate,
 *   counts the ms of each item played, and stops at the next render quantum on 'stop'.
 */

// Worklet-scope globals (not in TypeScript's DOM library).
declare class AudioWorkletProcessor { readonly port: MessagePort; constructor(o?: any) }
declare function registerProcessor(name: string, ctor: unknown): void;
declare const sampleRate: number;

function captureModule() {
  /** RBJ low-pass biquad coefficients, normalised: [b0, b1, b2, a1, a2]. */
  const lowPass = (fc: number, fs: number) => {
    const w = 2 * Math.PI * fc / fs;
    const alpha = Math.sin(w) / (2 * Math.SQRT1_2);
    const c = Math.cos(w);
    const a0 = 1 + alpha;
    return [(1 - c) / 2 / a0, (1 - c) / a0, (1 - c) / 2 / a0, -2 * c / a0, (1 - alpha) / a0];
  };
  class Capture extends AudioWorkletProcessor {
    declare step: number; declare t: number; declare prev: number; declare frame: Int16Array; declare n: number;
    declare k: number[] | null; declare z: Float64Array; declare buf: Float32Array;
    constructor(o: any) {
      super();
      const rate: number = o.processorOptions.rate;
      this.step = sampleRate / rate;
      this.t = 0;
      this.prev = 0;
      this.frame = new Int16Array(Math.round(rate / 50));
      this.n = 0;
      // Two cascaded biquads (4th order) below the new Nyquist keep aliasing out when downsampling.
      this.k = rate < sampleRate ? lowPass(rate * 0.45, sampleRate) : null;
      this.z = new Float64Array(8);
      this.buf = new Float32Array(128);
    }
    filter(x: Float32Array): Float32Array {
      const k = this.k;
      if (!k) return x;
      if (this.buf.length < x.length) this.buf = new Float32Array(x.length);
      const y = this.buf, z = this.z;
      for (let i = 0; i < x.length; i++) {
        let v = x[i];
        for (let s = 0; s < 8; s += 4) {
          // Direct form I: z[s..s+1] past inputs, z[s+2..s+3] past outputs.
          const out = k[0] * v + k[1] * z[s] + k[2] * z[s + 1] - k[3] * z[s + 2] - k[4] * z[s + 3];
          z[s + 1] = z[s]; z[s] = v; z[s + 3] = z[s + 2]; z[s + 2] = out;
          v = out;
        }
        y[i] = v;
      }
      return y;
    }
    process(inputs: Float32Array[][]): boolean {
      const ch = inputs[0] && inputs[0][0];
      if (!ch || !ch.length) return true;
      const x = this.filter(ch);
      const last = x.length - 1;
      let t = this.t;
      // x[-1] is the previous block's last sample; positions in [last, last + 1) wait for the next block.
      while (t < last) {
        const i = Math.floor(t);
        const f = t - i;
        const a = i < 0 ? this.prev : x[i];
        const v = a + (x[i + 1] - a) * f;
        this.frame[this.n++] = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
        if (this.n === this.frame.length) {
          const full = this.frame;
          this.frame = new Int16Array(full.length);
          this.n = 0;
          this.port.postMessage(full.buffer, [full.buffer]);
        }
        t += this.step;
      }
      this.t = t - x.length;
      this.prev = x[last];
      return true;
    }
  }
  registerProcessor('sc-capture', Capture);
}

function playerModule() {
  type Chunk = { item: string; data: Float32Array; off: number };
  class Player extends AudioWorkletProcessor {
    declare step: number; declare startAt: number; declare q: Chunk[]; declare queued: number; declare closed: Set<string>;
    declare item: string | null; declare played: number; declare a: number; declare b: number; declare f: number;
    declare phase: 0 | 1 | 2; declare sum: number; declare count: number; declare window: number;
    constructor(o: any) {
      super();
      const rate: number = o.processorOptions.rate;
      this.step = rate / sampleRate;
      this.startAt = Math.round(rate * (o.processorOptions.startMs / 1000));
      this.q = [];
      this.queued = 0;
      this.closed = new Set();
      this.item = null;
      this.played = 0;
      this.a = 0; this.b = 0; this.f = 0;
      // 0 idle, 1 playing, 2 stalled (the item's audio ran out before it was closed: wait for more).
      this.phase = 0;
      this.sum = 0; this.count = 0;
      this.window = Math.round(sampleRate / 40);
      this.port.onmessage = (e: MessageEvent) => this.onMessage(e.data);
    }
    ms(): number { return Math.round(this.played / (this.step * sampleRate) * 1000); }
    onMessage(m: any) {
      if (m.t === 'audio') {
        const pcm = new Int16Array(m.pcm);
        const data = new Float32Array(pcm.length);
        for (let i = 0; i < pcm.length; i++) data[i] = pcm[i] / 32768;
        this.q.push({ item: m.item, data, off: 0 });
        this.queued += data.length;
      } else if (m.t === 'end') {
        this.closed.add(m.item);
      } else if (m.t === 'stop') {
        const item = this.item, ms = this.ms();
        this.q = []; this.queued = 0;
        this.closed.clear();
        this.finish();
        this.port.postMessage({ t: 'stopped', item, ms });
      }
    }
    /** The next input sample, or null when the queue is empty. Crossing into another item ends the current one. */
    next(): number | null {
      const c = this.q[0];
      if (!c) return null;
      if (c.item !== this.item) {
        if (this.item !== null) this.port.postMessage({ t: 'done', item: this.item, ms: this.ms() });
        this.item = c.item;
        this.played = 0;
      }
      const v = c.data[c.off++];
      if (c.off === c.data.length) this.q.shift();
      this.queued--;
      this.played++;
      return v;
    }
    /** The current item played to its end. */
    end() {
      this.closed.delete(this.item!);
      this.port.postMessage({ t: 'done', item: this.item, ms: this.ms() });
      this.finish();
    }
    finish() {
      this.item = null;
      this.played = 0;
      this.a = this.b = this.f = 0;
      if (this.phase !== 0) { this.phase = 0; this.port.postMessage({ t: 'state', playing: false, level: 0 }); }
    }
    process(_in: Float32Array[][], outputs: Float32Array[][]): boolean {
      const out = outputs[0][0];
      if (this.phase !== 1) {
        const front = this.q[0];
        if (this.phase === 2 && !front && this.closed.has(this.item!)) { this.end(); return true; }
        const ready = this.queued >= this.startAt || (front && this.closed.has(front.item));
        if (!ready) return true;
        if (this.phase === 0) { this.port.postMessage({ t: 'state', playing: true }); this.b = this.next() ?? 0; }
        this.phase = 1;
      }
      for (let i = 0; i < out.length; i++) {
        const v = this.a + (this.b - this.a) * this.f;
        out[i] = v;
        this.sum += v * v;
        this.f += this.step;
        while (this.f >= 1) {
          const s = this.next();
          if (s === null) {
            // Out of audio: the item is over if the server closed it, else a network stall (wait, then resume).
            if (this.item !== null && this.closed.has(this.item)) {
              this.end();
            } else {
              this.phase = 2;
              this.f = 0;
            }
            return true;
          }
          this.f -= 1;
          this.a = this.b;
          this.b = s;
        }
        if (++this.count === this.window) {
          this.port.postMessage({ t: 'level', item: this.item, ms: this.ms(), rms: Math.sqrt(this.sum / this.count) });
          this.sum = 0; this.count = 0;
        }
      }
      return true;
    }
  }
  registerProcessor('sc-player', Player);
}

const loaded = new WeakMap<BaseAudioContext, Promise<void>>();

/** Adds both processors to the context once. */
export function loadWorklets(ctx: BaseAudioContext): Promise<void> {
  let p = loaded.get(ctx);
  if (!p) {
    const url = URL.createObjectURL(new Blob([`(${captureModule})();(${playerModule})();`], { type: 'text/javascript' }));
    p = ctx.audioWorklet.addModule(url).finally(() => URL.revokeObjectURL(url));
    loaded.set(ctx, p);
  }
  return p;
}
