// In-page harness for test/widget/voice-client.test.ts: drives voice.js's client the way the chat socket does
// (frames in, frames out) and records what the player sends to the speakers through a recorder worklet
// hooked in front of the destination. Plain JS: it runs in the page as it is.
const REC = `registerProcessor('test-rec', class extends AudioWorkletProcessor {
  constructor() { super(); this.buf = new Float32Array(sampleRate * 20); this.n = 0; this.mark = -1;
    this.port.onmessage = (e) => { if (e.data === 'mark') this.mark = this.n; else this.port.postMessage({ samples: this.buf.slice(0, this.n), mark: this.mark }); }; }
  process(inputs) { const ch = inputs[0] && inputs[0][0]; const len = ch ? ch.length : 128;
    if (this.n + len <= this.buf.length) { if (ch) this.buf.set(ch, this.n); this.n += len; } return true; }
});`;

window.harness = {
  sent: [], audio: [], states: [], inLevels: [], outLevels: [],
  async start({ inputRate = 24000, outputRate = 24000, mode, answer = true } = {}) {
    const h = this;
    if (!h.client) await h.setup();
    h.outputRate = outputRate;
    await h.client.start(mode);
    if (answer) {
      for (const state of ['connecting', 'listening']) h.frame({ t: 'voice', state, sessionId: 's1', mode: mode ?? 'hands_free', inputRate, outputRate });
      // Capture (and sending) starts here: a rate is frames over the page's time since then.
      h.listeningAt = performance.now();
    }
    return h.client.snap;
  },
  async setup() {
    const h = this;
    const { createVoiceClient } = await import('/voice.js');
    const ctx = new AudioContext();
    const url = URL.createObjectURL(new Blob([REC], { type: 'text/javascript' }));
    await ctx.audioWorklet.addModule(url);
    h.rec = new AudioWorkletNode(ctx, 'test-rec', { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit' });
    const connect = AudioNode.prototype.connect;
    AudioNode.prototype.connect = function (dest, ...rest) {
      if (dest instanceof AudioDestinationNode) connect.call(this, h.rec);
      return connect.call(this, dest, ...rest);
    };
    h.ctx = ctx;
    h.client = createVoiceClient({
      ctx,
      send: (f) => { h.sent.push(f); return true; },
      sendAudio: (b) => h.audio.push({ bytes: b.length, first: b[0], at: performance.now() }),
      onChange: (s) => h.states.push({ ...s }),
      onInputLevel: (l) => h.inLevels.push(l),
      onOutputLevel: (l) => h.outLevels.push(l),
    });
  },
  frame(f) { this.client.onFrame(f); },
  state(state) { this.frame({ t: 'voice', state, sessionId: 's1', mode: this.client.snap.mode, inputRate: 24000, outputRate: this.outputRate }); },
  /** A 440 Hz tone of `ms` for `item`, in chunks of the given sizes (ms), cycling. */
  tone(item, ms, chunks = [20]) {
    const rate = this.outputRate;
    const total = Math.round(rate * ms / 1000);
    this.toneAt = this.toneAt || 0;
    for (let off = 0, k = 0; off < total; k++) {
      const n = Math.min(total - off, Math.max(1, Math.round(rate * chunks[k % chunks.length] / 1000)));
      const b = new Uint8Array(1 + 2 * n);
      b[0] = 1;
      const pcm = new Int16Array(n);
      for (let i = 0; i < n; i++) pcm[i] = Math.round(8000 * Math.sin(2 * Math.PI * 440 * (this.toneAt + i) / rate));
      b.set(new Uint8Array(pcm.buffer), 1);
      this.toneAt += n;
      off += n;
      this.client.onAudio(b.buffer);
    }
  },
  mark() { this.rec.port.postMessage('mark'); },
  recording() {
    return new Promise((resolve) => {
      this.rec.port.onmessage = (e) => resolve(e.data);
      this.rec.port.postMessage('dump');
    });
  },
  /** Recorded output: where sound starts and ends, the longest silent run inside, zero crossings, and what follows the mark. */
  async analyse() {
    const { samples, mark } = await this.recording();
    let first = -1, last = -1;
    for (let i = 0; i < samples.length; i++) if (Math.abs(samples[i]) > 1e-3) { if (first < 0) first = i; last = i; }
    let run = 0, longest = 0, crossings = 0;
    for (let i = first + 1; i <= last; i++) {
      run = Math.abs(samples[i]) < 1e-4 ? run + 1 : 0;
      longest = Math.max(longest, run);
      if ((samples[i - 1] < 0) !== (samples[i] < 0)) crossings++;
    }
    let loudAfterMark = 0;
    if (mark >= 0) for (let i = mark; i < samples.length; i++) if (Math.abs(samples[i]) > 1e-4) loudAfterMark = i - mark + 1;
    return { rate: this.ctx.sampleRate, first, last, soundMs: (last - first) / this.ctx.sampleRate * 1000, longestSilence: longest, hz: crossings / 2 / ((last - first) / this.ctx.sampleRate), loudAfterMark };
  },
};
