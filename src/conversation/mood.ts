/**
 * Strips mood tags ([mood:happy]) from streamed reply text and reports them, for face.expressions. A tag may
 * arrive split over several deltas, so a possible tag start is held back until it completes or cannot be one.
 */
import { MOODS } from './prompt.js';

/** One of the documented moods (docs/faces.md); anything else a model writes is dropped, never forwarded. */
export const isMood = (m: string): boolean => (MOODS as readonly string[]).includes(m);

const TAG = /\[mood:\s*([a-z_-]{1,24})\s*\]/gi;
const MAX_TAG = 40;

export class MoodFilter {
  private held = '';
  readonly moods: string[] = [];

  /** Feeds a delta; returns the visible text that can be shown now. */
  push(delta: string): string {
    // Most deltas hold no '[' and nothing is held back: they pass as they are, with no regex work.
    if (!this.held && !delta.includes('[')) return delta;
    let text = this.held + delta;
    this.held = '';
    text = text.replace(TAG, (_m, mood: string) => { this.moods.push(mood.toLowerCase()); return ''; });
    const open = text.lastIndexOf('[');
    if (open >= 0 && text.length - open < MAX_TAG && !text.slice(open).includes(']') && '[mood:'.startsWith(text.slice(open, open + 6).toLowerCase())) {
      this.held = text.slice(open);
      text = text.slice(0, open);
    }
    return text;
  }

  /** Whatever is held back at the end of the stream (a '[' that never became a tag). */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

/** Removes mood tags from a whole text (and the space a leading tag leaves). */
export function stripMoodTags(text: string): { text: string; moods: string[] } {
  const f = new MoodFilter();
  const out = f.push(text) + f.flush();
  return { text: out.replace(/^\s+/, ''), moods: f.moods };
}
