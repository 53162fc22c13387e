/** Hash routing: #/bots/bot_1 -> ['bots', 'bot_1']. The server serves one page; the hash picks the view. */
import { useEffect, useState } from 'preact/hooks';

export function parts(): string[] {
  return location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function go(path: string): void { location.hash = `#${path}`; }

/** The current route's parts; the component redraws when the hash changes. */
export function useRoute(): string[] {
  const [route, setRoute] = useState(parts);
  useEffect(() => {
    const on = () => setRoute(parts());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
