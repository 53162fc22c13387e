/** Hash routing: #/bots/bot_1 -> ['bots', 'bot_1']. The server serves one page; the hash picks the view. */
import { useEffect, useState } from 'preact/hooks';

export function parts(): string[] {
  return location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function go(path: string): void { location.hash = `#${path}`; }

/**
 * A page with unsaved edits may hold the route: asked with the parts of the place a link (or Back) leads to, it
 * answers true to let go, or a promise of the person's answer. While it asks, the address shows the page again.
 */
export type LeaveGuard = (next: string[]) => true | Promise<boolean>;
let guard: LeaveGuard | null = null;
let accepted = typeof location === 'undefined' ? '' : location.hash;

/** Sets the guard; returns the function that takes it away again (for an effect's clean-up). */
export function holdRoute(g: LeaveGuard): () => void {
  guard = g;
  return () => { if (guard === g) guard = null; };
}

/** The current route's parts; the component redraws when the hash changes. */
export function useRoute(): string[] {
  const [route, setRoute] = useState(parts);
  useEffect(() => {
    const on = async () => {
      const target = location.hash;
      const verdict = guard ? guard(parts()) : true;
      if (verdict !== true) {
        // replaceState fires no hashchange: the page stays, and its address with it, until the answer.
        history.replaceState(history.state, '', `${location.pathname}${location.search}${accepted}`);
        if (!(await verdict)) return;
        guard = null;
        location.hash = target;
        return;
      }
      accepted = target;
      setRoute(parts());
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
