/**
 * The face engine (face.js), loaded by the chat only when a face is shown (docs/faces.md). createFace() draws
 * the bot's face into an element and animates it: a catalogue face as SVG, a custom face as the photo warped
 * on a WebGL mesh of its landmarks (face/custom.ts). The chat tells it the mood, the audio level of what
 * plays, whether a typed reply is being mimed, and whether the bot is offline.
 */
import { SvgFace } from './face/draw.js';
import { Motion, type Frame } from './face/motion.js';
import { lookOf, SKIN_IDS } from './face/skins.js';

export type FaceSkin = { kind: 'catalogue'; id: string } | { kind: 'custom'; assetId: string };

export interface FaceOptions {
  skin: FaceSkin;
  config?: Record<string, unknown>;
  /** The widget's accent colour (preset "accent"). */
  accent?: string;
  mood?: string | null;
  /** The server's origin, for custom faces' photo and landmarks. */
  base: string;
  /** prefers-reduced-motion: the face holds still. */
  still?: boolean;
}

export interface FaceHandle {
  /** False when the mood is not one of the documented moods (nothing changes). */
  setMood(mood: string): boolean;
  /** The level 0..1 of audio the widget plays now (lip sync). */
  setLevel(level: number): void;
  setMiming(on: boolean): void;
  setOffline(off: boolean): void;
  setStill(still: boolean): void;
  /** Paused (the chat window is closed): nothing is drawn or scheduled until it is resumed. */
  setPaused(paused: boolean): void;
  /** The frame last drawn (tests and the bench read it). */
  readonly frame: Frame;
  readonly kind: 'svg' | 'custom';
  destroy(): void;
}

interface Renderer { draw(f: Frame): void; destroy?(): void }

let uid = 0;

export function createFace(host: HTMLElement, o: FaceOptions): FaceHandle {
  const look = lookOf(o.config, o.accent);
  const motion = new Motion(!!o.still, look.motion, o.mood);
  const u = `sf${uid++}-`;
  const catalogue = (id: string): Renderer => new SvgFace(host, (SKIN_IDS as readonly string[]).includes(id) ? id : 'default', look, u);
  let kind: 'svg' | 'custom' = 'svg';
  let r: Renderer = catalogue(o.skin.kind === 'catalogue' ? o.skin.id : 'default');
  let raf = 0;
  let dead = false;
  let paused = false;
  if (o.skin.kind === 'custom') {
    // The catalogue face stands in until the photo and landmarks are loaded (and stays if they cannot be).
    const assetId = o.skin.assetId;
    void import('./face/custom.js').then((m) => m.loadCustomFace(o.base, assetId)).then((face) => {
      if (dead) return;
      const c = face.mount(host);
      r = c;
      kind = 'custom';
      host.dataset.kind = 'custom';
      wake();
    }).catch((err) => console.warn('ServiceChat: the custom face could not be shown; a catalogue face stands in:', err?.message ?? err));
  }
  host.dataset.kind = 'svg';

  let drawn = 0;
  let timer = 0;
  const tick = (now: number) => {
    raf = 0;
    if (dead || paused) return;
    // 30 drawings a second are plenty for a face (film has 24) and leave every other display frame untouched;
    // a still face (or one just woken) draws at once.
    if (motion.still || now - drawn >= 30) { drawn = now; r.draw(motion.step(now)); }
    // Still (reduced motion) faces draw once per change. A face at rest draws only to breathe (ten times a second:
    // the motion is slow) until its next blink or glance. A CSS animation would cost main-thread work every frame.
    if (motion.still) return;
    const until = motion.restUntil(now);
    if (until > now + 50) timer = window.setTimeout(wake, Math.min(until - now, 10_000));
    else raf = requestAnimationFrame(tick);
  };
  const wake = () => {
    clearTimeout(timer);
    if (!raf && !dead && !paused) raf = requestAnimationFrame(tick);
  };
  wake();
  const mark = () => { host.dataset.mood = motion.offline ? 'offline' : motion.mood; };
  mark();

  return {
    setMood(m) { const ok = motion.setMood(m); if (ok) { mark(); wake(); } return ok; },
    setLevel(l) { motion.level = l; if (l > 0.02) wake(); },
    setMiming(on) { motion.miming = on; if (on) wake(); },
    setOffline(off) { motion.setOffline(off); mark(); wake(); },
    setStill(still) { motion.still = still; wake(); },
    setPaused(p) { paused = p; if (p) { cancelAnimationFrame(raf); raf = 0; clearTimeout(timer); } else wake(); },
    get frame() { return motion.frame; },
    get kind() { return kind; },
    destroy() { dead = true; cancelAnimationFrame(raf); clearTimeout(timer); r.destroy?.(); host.textContent = ''; },
  };
}
