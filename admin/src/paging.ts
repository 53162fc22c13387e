/** A newest-first list read page by page: each answer's nextBefore is the next request's before. */
import { useEffect, useState } from 'preact/hooks';
import type { Page } from './types.js';
import { messageOf } from './ui.js';

export function usePaged<T>(fetchPage: (before: string | null) => Promise<Page<T>>, deps: unknown[] = []) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    fetchPage(null).then((p) => { if (live) { setItems(p.items); setNext(p.nextBefore); setError(null); } }, (e) => { if (live) setError(messageOf(e)); });
    return () => { live = false; };
  }, [...deps, tick]);

  const more = async () => {
    if (!next) return;
    try {
      const p = await fetchPage(next);
      setItems((old) => [...(old ?? []), ...p.items]);
      setNext(p.nextBefore);
    } catch (e) { setError(messageOf(e)); }
  };
  return { items, hasMore: next !== null, more, error, reload: () => setTick((t) => t + 1) };
}
