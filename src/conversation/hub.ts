import { encodeFrame, type ServerFrame } from './protocol.js';

/** The part of a socket the hub needs (src/http SocketConn fits). */
export interface FrameSink {
  readonly id: number;
  readonly closed: boolean;
  send(message: string): 'ok' | 'backpressure' | 'dropped';
}

/**
 * Which widget sockets have which conversation open. Actors push frames here; a slow socket only loses its
 * own frames (the transport drops past its buffer limit), never slows the actor.
 */
export class ChatHub {
  private byConversation = new Map<string, Set<FrameSink>>();
  /** Conversations whose open widgets were shown a lead form (offline flows), so a `lead` frame may answer it. */
  private leadForms = new Set<string>();
  /** Scale-out: sends this process's frames to the group, whose widgets may have the conversation open too. */
  relay: ((conversationId: string, frame: ServerFrame, text: string, replyId?: string) => void) | null = null;
  /** Scale-out: told when this process's first socket of a conversation opens (true) or its last closes (false). */
  onWatch: ((conversationId: string, open: boolean) => void) | null = null;
  /** Called when the last socket of a conversation closes, or the first one opens. */
  onPresence: (conversationId: string, open: boolean) => void = () => {};

  join(conversationId: string, sink: FrameSink): void {
    let set = this.byConversation.get(conversationId);
    if (!set) { set = new Set(); this.byConversation.set(conversationId, set); }
    const first = set.size === 0;
    set.add(sink);
    if (first) { this.onWatch?.(conversationId, true); this.onPresence(conversationId, true); }
  }

  leave(conversationId: string, sink: FrameSink): void {
    const set = this.byConversation.get(conversationId);
    if (!set?.delete(sink)) return;
    if (set.size === 0) {
      this.byConversation.delete(conversationId);
      this.leadForms.delete(conversationId);
      this.onWatch?.(conversationId, false);
      this.onPresence(conversationId, false);
    }
  }

  /** Sockets with this conversation open. */
  openCount(conversationId: string): number {
    return this.byConversation.get(conversationId)?.size ?? 0;
  }

  /** The sockets with this conversation open (a live view: do not change it). */
  sinks(conversationId: string): ReadonlySet<FrameSink> {
    return this.byConversation.get(conversationId) ?? NONE;
  }

  /** A lead form was pushed to the widgets that have the conversation open now. */
  leadFormShown(conversationId: string): boolean {
    return this.leadForms.has(conversationId);
  }

  /**
   * Sends a frame to every socket of the conversation (encoded once); returns how many took it. `replyId`: the
   * reply a status frame belongs to (scale-out: another process tells its widgets when that reply is cut off).
   */
  push(conversationId: string, frame: ServerFrame, replyId?: string): number {
    const set = this.byConversation.get(conversationId);
    if (!set && !this.relay) return 0;
    const text = encodeFrame(frame);
    this.relay?.(conversationId, frame, text, replyId);
    return this.deliver(conversationId, frame.t, text);
  }

  /** Sends an encoded frame to this process's sockets of the conversation (a frame from the group arrives here). */
  deliver(conversationId: string, t: string, text: string): number {
    const set = this.byConversation.get(conversationId);
    if (!set) return 0;
    if (t === 'lead_form') this.leadForms.add(conversationId);
    let n = 0;
    for (const s of set) if (!s.closed && s.send(text) !== 'dropped') n++;
    return n;
  }
}

const NONE: ReadonlySet<FrameSink> = new Set();
