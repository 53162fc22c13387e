import type { ChatHub } from '../conversation/hub.js';
import { encodeFrame, type ServerFrame } from '../conversation/protocol.js';
import { MEMBERSHIP_MS, type ScaleNode } from '../scale/node.js';

/** How often replies streaming on another process are checked for a dead or frozen owner. */
const CHECK_MS = 1000;

/**
 * What a relayed widget frame says about the reply streaming for its conversation: `on` (a delta, or a status
 * of a running reply) or `off` (the reply was stored, dropped or cut off; `r` '' is any reply: the agent is
 * idle). Null: the frame says nothing about it.
 */
export function replyMark(frame: ServerFrame, replyId?: string): { r: string; on: boolean } | null {
  switch (frame.t) {
    case 'delta': return { r: frame.messageId, on: true };
    case 'status': return frame.state === 'idle' ? { r: '', on: false } : replyId ? { r: replyId, on: true } : null;
    case 'message': return { r: frame.message.id, on: false };
    case 'delta_reset': case 'interrupted': return { r: frame.messageId, on: false };
    default: return null;
  }
}

/**
 * Replies streaming on another process (the conversation's owner) to widgets open here. When that process dies
 * or freezes (its membership in the group lapses, or the conversation's lease is no longer its), the reply will
 * never be finished by it: the widgets here are told at once with an `interrupted` frame (they keep what was
 * shown, mark it as cut off and offer "Ask again"; docs/widget-protocol.md) rather than waiting on it for ever.
 * A process that wakes after all and stores the reply sends it as usual, and the widget shows it.
 */
export class RemoteReplies {
  /** conversation id -> the reply streaming to it and the process writing it. */
  private readonly streaming = new Map<string, { r: string; owner: string }>();
  /** When Redis last came back (performance.now()): memberships are renewed within MEMBERSHIP_MS after. */
  private backAt = -Infinity;
  private readonly stopChecking: () => void;
  private checking = false;

  constructor(private readonly node: ScaleNode, private readonly hub: ChatHub) {
    node.onHealth((up) => { if (up) this.backAt = performance.now(); });
    this.stopChecking = node.heartbeat.every(CHECK_MS, () => void this.check());
  }

  /** A frame of conversation `c` relayed from process `owner`, with what it says about the reply (replyMark). */
  seen(c: string, owner: string, mark: { r: string; on: boolean }): void {
    if (mark.on) { this.streaming.set(c, { r: mark.r, owner }); return; }
    const cur = this.streaming.get(c);
    if (cur && (mark.r === '' || mark.r === cur.r)) this.streaming.delete(c);
  }

  private async check(): Promise<void> {
    if (this.checking || !this.streaming.size || !this.node.healthy) return;
    // Just after Redis came back (perhaps empty), live processes have not renewed their membership yet.
    if (performance.now() - this.backAt < MEMBERSHIP_MS) return;
    this.checking = true;
    try {
      await Promise.all([...this.streaming].map(async ([c, reply]) => {
        if (this.hub.openCount(c) === 0) { this.streaming.delete(c); return; }
        const [alive, owner] = await Promise.all([this.node.isMember(reply.owner), this.node.peekOwner(c)]);
        if (alive && owner === reply.owner) return;
        if (this.streaming.get(c) !== reply) return; // finished meanwhile, or another reply began
        this.streaming.delete(c);
        this.hub.deliver(c, 'interrupted', encodeFrame({ t: 'interrupted', conversationId: c, messageId: reply.r }));
      }));
    } catch {
      // Redis did not answer: looked at again on the next tick.
    } finally {
      this.checking = false;
    }
  }

  close(): void { this.stopChecking(); this.streaming.clear(); }
}
