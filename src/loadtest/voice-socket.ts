/**
 * The widget's side of a chat socket as the voice clients drive it (docs/widget-protocol.md): JSON frames handed to
 * whoever waits for them, a typed message, voice_start and voice_stop. Shared by the load test's talking visitors
 * (src/loadtest/voice-visitor.ts) and the voice benches' widgets (bench/voice-clients.ts, bench/voice-cascade-clients.ts).
 */
import type WebSocket from 'ws';

/** A server frame, loosely typed: the clients read only these fields. */
export type Frame = {
  t?: string; state?: string; reason?: string; code?: string; message?: any; itemId?: string; messageId?: string; inputRate?: number;
};

type Waiter = { pred: (f: Frame) => boolean; resolve: (f: Frame | null) => void };

export class VoiceSocket {
  private waiters: Waiter[] = [];

  /** `stopped`: when it settles, every wait ends with null (a load test's run reaching its time limit). */
  constructor(readonly ws: WebSocket, private readonly stopped?: Promise<void>) {}

  /** Hands a JSON frame from the socket to the waiters it matches (call it for every one). */
  dispatch(f: Frame): void {
    for (const w of this.waiters.filter((x) => x.pred(f))) { this.waiters.splice(this.waiters.indexOf(w), 1); w.resolve(f); }
  }

  /** The next frame that matches, or null after `ms` or when `stopped` settles. */
  next(pred: (f: Frame) => boolean, ms: number): Promise<Frame | null> {
    return new Promise((resolve) => {
      const drop = (f: Frame | null) => {
        const i = this.waiters.indexOf(w);
        if (i < 0) return;
        this.waiters.splice(i, 1);
        w.resolve(f);
      };
      const w: Waiter = { pred, resolve: (f) => { clearTimeout(timer); resolve(f); } };
      const timer = setTimeout(() => drop(null), ms);
      this.waiters.push(w);
      void this.stopped?.then(() => drop(null));
    });
  }

  /** As next, but an error saying what did not come. */
  async expect(pred: (f: Frame) => boolean, what: string, ms = 30_000): Promise<Frame> {
    const f = await this.next(pred, ms);
    if (!f) throw new Error(`widget: no ${what} within ${ms} ms`);
    return f;
  }

  /** A typed message; resolves once the agent's reply is stored (the conversation exists then). */
  async say(text: string): Promise<void> {
    const reply = this.expect((f) => (f.t === 'message' && f.message?.role === 'assistant') || f.t === 'error', 'text reply');
    this.ws.send(JSON.stringify({ t: 'message', text }));
    const f = await reply;
    if (f.t === 'error') throw new Error(`message refused: ${f.code} ${f.message}`);
  }

  /** voice_start; the answer (the session listening or ended, or an error frame), or null after `ms`. */
  startVoice(ms = 30_000): Promise<Frame | null> {
    const started = this.next((f) => (f.t === 'voice' && (f.state === 'listening' || f.state === 'ended')) || f.t === 'error', ms);
    this.ws.send('{"t":"voice_start"}');
    return started;
  }

  /** voice_stop; true once the session says it ended, false after `ms`. */
  async stopVoice(ms = 30_000): Promise<boolean> {
    const ended = this.next((f) => f.t === 'voice' && f.state === 'ended', ms);
    this.ws.send('{"t":"voice_stop"}');
    return (await ended) !== null;
  }
}
