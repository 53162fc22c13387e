/**
 * The closing animation: after `open` turns false the window stays drawn (inert, out of the accessibility tree)
 * until its closing animation ends, then it is hidden. Under prefers-reduced-motion it is hidden at once.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';

const still = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

export function useClosing(open: boolean, win: RefObject<HTMLElement>): boolean {
  // Whether the window is drawn: true while open, and after a close until the closing animation ends.
  const drawn = useRef(open);
  const [, redraw] = useState(0);
  if (open) drawn.current = true;
  else if (drawn.current && still()) drawn.current = false;
  const closing = !open && drawn.current;
  useLayoutEffect(() => {
    const el = win.current;
    if (!closing || !el) return;
    let live = true;
    const done = () => { if (live && !open) { drawn.current = false; redraw((n) => n + 1); } };
    const running = el.getAnimations().filter((a) => (a as CSSAnimation).animationName?.endsWith('-out'));
    if (!running.length) done();
    else Promise.all(running.map((a) => a.finished)).then(done, done);
    return () => { live = false; };
  }, [closing]);
  return closing;
}
