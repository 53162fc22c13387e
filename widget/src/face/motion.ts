/**
 * What makes a face alive, renderer-agnostic: eases the pose toward the mood, blinks at irregular intervals,
 * breathes, lets the gaze wander, and moves the mouth from the audio level (lip sync) or a silent mime while a
 * typed reply streams. Under prefers-reduced-motion every one of these holds still: moods change the
 * expression at once and the mouth stays closed.
 */
import { ease, isMood, POSES, type Pose } from './moods.js';

export interface Frame extends Pose {
  /** Eyelid closure from blinking, 0..1. */
  blink: number;
  /** Breathing phase, -1..1. */
  breathe: number;
  /** Gaze, -1..1 each. */
  gx: number;
  gy: number;
  /** Mouth opening from speech or mime, 0..1. */
  talk: number;
}

export class Motion {
  readonly frame: Frame = { ...POSES.content, blink: 0, breathe: 0, gx: 0, gy: 0, talk: 0 };
  mood = 'content';
  offline = false;
  /** The latest audio level 0..1 of what the widget plays (set by the chat from its players). */
  level = 0;
  /** A typed reply is streaming and the face mimes it. */
  miming = false;
  private target: Pose = POSES.content;
  private last = 0;
  private nextBlink = 0;
  private blinkStart = -1e9;
  private nextGaze = 0;
  private gaze = { x: 0, y: 0 };
  private talk = 0;

  /** amp scales breathing and gaze (face.config.motion: calm 0.5, normal 1, lively 1.5). */
  constructor(public still: boolean, private readonly amp = 1, mood?: string | null) {
    if (mood) this.setMood(mood);
    Object.assign(this.frame, this.target);
  }

  /** Unknown moods are ignored (the server filters them too). */
  setMood(mood: string): boolean {
    if (!isMood(mood)) return false;
    this.mood = mood;
    this.retarget();
    return true;
  }

  setOffline(off: boolean): void { this.offline = off; this.retarget(); }

  private retarget() {
    this.target = this.offline ? POSES.offline : POSES[this.mood as keyof typeof POSES];
    if (this.still) Object.assign(this.frame, this.target);
  }

  /** Advances to time `now` (ms) and returns the frame to draw. */
  step(now: number): Frame {
    const f = this.frame;
    const dt = Math.min(100, this.last ? now - this.last : 16);
    this.last = now;
    if (this.still) {
      Object.assign(f, this.target, { blink: 0, breathe: 0, gx: this.target.lookX, gy: this.target.lookY, talk: 0 });
      return f;
    }
    // About a fifth of a second to settle on a new mood: smooth, not sluggish.
    ease(f, this.target, 1 - Math.exp(-dt / 180));
    f.breathe = Math.sin((now / 4200) * Math.PI * 2) * this.amp;

    // Blinks every 2-6 s, sometimes twice; none while offline (the eyes are already shut).
    if (!this.nextBlink) this.nextBlink = now + 1200 + Math.random() * 2000;
    if (now >= this.nextBlink && !this.offline) {
      this.blinkStart = now;
      this.nextBlink = now + (Math.random() < 0.15 ? 260 : 2000 + Math.random() * 4000);
    }
    const b = (now - this.blinkStart) / 170;
    f.blink = b >= 1 ? 0 : Math.sin(b * Math.PI);

    // Gaze: a glance elsewhere now and then, mostly back to the visitor.
    if (now >= this.nextGaze) {
      const away = Math.random() < 0.35;
      this.gaze = away ? { x: (Math.random() * 2 - 1) * 0.8, y: (Math.random() * 2 - 1) * 0.5 } : { x: 0, y: 0 };
      this.nextGaze = now + (away ? 600 + Math.random() * 900 : 2500 + Math.random() * 3500);
    }
    const k = 1 - Math.exp(-dt / 90);
    f.gx += (this.target.lookX + this.gaze.x * 0.6 * this.amp - f.gx) * k;
    f.gy += (this.target.lookY + this.gaze.y * 0.6 * this.amp - f.gy) * k;

    // Mouth: the audio level when something plays, else a syllable-like mime while a reply streams.
    let want = this.level > 0.02 ? Math.min(1, this.level * 1.6) : 0;
    if (!want && this.miming) {
      const t = now / 1000;
      want = Math.max(0, 0.55 * Math.abs(Math.sin(t * 11.5)) * (0.6 + 0.4 * Math.sin(t * 3.1)) - 0.05);
    }
    // Opens fast, closes a little slower, as jaws do.
    this.talk += (want - this.talk) * (1 - Math.exp(-dt / (want > this.talk ? 35 : 70)));
    f.talk = this.talk;
    return f;
  }

  /**
   * After step(now): 0 while something is moving fast (easing, a blink, speech); otherwise when the next blink,
   * glance or breath step is due, so the face can sleep until then instead of drawing at the display's rate.
   */
  restUntil(now: number): number {
    const f = this.frame, t = this.target;
    if (this.miming || this.level > 0.02 || this.talk > 0.004 || now - this.blinkStart < 200) return 0;
    for (const k in t) if (Math.abs((f as any)[k] - (t as any)[k]) > 0.01) return 0;
    if (Math.abs(f.gx - t.lookX - this.gaze.x * 0.6 * this.amp) > 0.02 || Math.abs(f.gy - t.lookY - this.gaze.y * 0.6 * this.amp) > 0.02) return 0;
    return Math.min(this.offline ? Infinity : this.nextBlink, this.nextGaze, now + 100);
  }
}
