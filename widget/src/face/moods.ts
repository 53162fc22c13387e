/**
 * The face's expression as a handful of numbers, one target per mood (docs/faces.md, Moods). Renderers draw
 * whatever Pose they are given; moods only pick where the pose eases to. The list is the server's
 * (src/conversation/prompt.ts MOODS): a mood not in it is ignored.
 */
export const MOODS = ['content', 'happy', 'excited', 'playful', 'thinking', 'surprised', 'confused', 'concerned', 'sad'] as const;
export type Mood = (typeof MOODS)[number];

export interface Pose {
  /** Eyelid opening: 1 open, 0 shut. */
  open: number;
  /** Lower lid raised into a smiling crescent, 0..1. */
  squint: number;
  /** Brows up (+) or down (-), in face units (viewBox 200). */
  brow: number;
  /** Brow tilt: + inner ends up (worried), - inner ends down (focused). */
  tilt: number;
  /** One brow higher than the other (confused, playful). */
  skew: number;
  /** Mouth corners: + smile, - frown, about -1..1. */
  smile: number;
  /** Resting mouth opening (surprise, excitement), 0..1; speech adds to it. */
  jaw: number;
  /** Mouth width factor. */
  wide: number;
  /** Cheek blush 0..1. */
  blush: number;
  /** Head tilt in degrees. */
  head: number;
  /** Resting gaze offset (thinking looks up and aside), -1..1. */
  lookX: number;
  lookY: number;
}

const BASE: Pose = { open: 1, squint: 0, brow: 0, tilt: 0, skew: 0, smile: 0.35, jaw: 0, wide: 1, blush: 0.35, head: 0, lookX: 0, lookY: 0 };

export const POSES: Record<Mood | 'offline', Pose> = {
  content: BASE,
  happy: { ...BASE, squint: 0.55, brow: 2, smile: 0.9, jaw: 0.12, wide: 1.12, blush: 0.7 },
  excited: { ...BASE, open: 1.12, squint: 0.2, brow: 6, smile: 1, jaw: 0.55, wide: 1.1, blush: 0.85 },
  playful: { ...BASE, squint: 0.35, brow: 2, skew: 4, smile: 0.7, wide: 0.95, blush: 0.6, head: 5, lookX: 0.35 },
  thinking: { ...BASE, open: 0.88, brow: 1, tilt: -2, skew: 3, smile: 0.05, wide: 0.8, blush: 0.2, head: -4, lookX: 0.6, lookY: -0.7 },
  surprised: { ...BASE, open: 1.2, brow: 8, smile: 0, jaw: 0.7, wide: 0.62, blush: 0.3 },
  confused: { ...BASE, open: 0.95, brow: 1, tilt: 1.5, skew: 6, smile: -0.1, wide: 0.85, blush: 0.2, head: -7, lookX: -0.2 },
  concerned: { ...BASE, open: 0.95, brow: 2, tilt: 5, smile: -0.25, wide: 0.9, blush: 0.15, lookY: 0.2 },
  sad: { ...BASE, open: 0.72, brow: -1, tilt: 6, smile: -0.6, wide: 0.85, blush: 0.1, head: -3, lookY: 0.6 },
  offline: { ...BASE, open: 0.06, brow: -2, smile: 0.1, wide: 0.8, blush: 0.1, head: -6, lookY: 0.5 },
};

export const isMood = (m: unknown): m is Mood => typeof m === 'string' && (MOODS as readonly string[]).includes(m);

/** Moves `from` toward `to` by fraction k (0..1) in place. */
export function ease(from: Pose, to: Pose, k: number): void {
  for (const key in to) (from as any)[key] += ((to as any)[key] - (from as any)[key]) * k;
}
