/**
 * The live socket /api/v1/live: the workspace's events as they happen. While it is open the server counts
 * this person as available for handoffs; presence online/away is sent on it. Reconnects after a drop;
 * the server's WebSocket pings keep it open.
 */
import type { LiveClientFrame, LiveServerFrame } from '../../protocol/live.js';
import type { LiveEvent } from './types.js';

const KEEP_EVENTS = 200;
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export type LiveState = 'connecting' | 'open' | 'closed';

export class LiveClient {
  readonly events: LiveEvent[] = [];
  state: LiveState = 'connecting';
  presence: 'online' | 'away' = 'online';
  private ws: WebSocket | null = null;
  private listeners = new Set<(e: LiveEvent | null) => void>();
  private retryMs = RETRY_FIRST_MS;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor() { this.connect(); }

  /** fn gets every event, and null when only the connection state or presence changed. */
  subscribe(fn: (e: LiveEvent | null) => void): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }

  setPresence(presence: 'online' | 'away'): void {
    this.presence = presence;
    this.send({ t: 'presence', presence });
    this.emit(null);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close();
    this.listeners.clear();
  }

  private connect(): void {
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/live`);
    this.ws = ws;
    this.setState('connecting');
    ws.onopen = () => {
      this.retryMs = RETRY_FIRST_MS;
      this.setState('open');
      if (this.presence === 'away') this.send({ t: 'presence', presence: 'away' });
    };
    ws.onmessage = (m) => {
      let frame: LiveServerFrame;
      try { frame = JSON.parse(String(m.data)) as LiveServerFrame; } catch { return; }
      if (typeof frame?.type !== 'string' || !frame.data) return;
      const event = { ...frame, receivedAt: Date.now() } as LiveEvent;
      this.events.unshift(event);
      this.events.length = Math.min(this.events.length, KEEP_EVENTS);
      this.emit(event);
    };
    ws.onclose = () => {
      if (this.stopped) return;
      this.setState('closed');
      this.timer = setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    };
  }

  private send(frame: LiveClientFrame): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  private setState(state: LiveState): void { this.state = state; this.emit(null); }

  private emit(e: LiveEvent | null): void { for (const fn of this.listeners) fn(e); }
}
