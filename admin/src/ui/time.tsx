/** Relative times ("3 min ago", "in 2 days") with the exact time on hover, redrawn every minute. */
import { useEffect, useState } from 'preact/hooks';

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86400_000], ['month', 30 * 86400_000], ['week', 7 * 86400_000], ['day', 86400_000], ['hour', 3600_000], ['minute', 60_000],
];
const fmt = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

/** "just now", "5 min ago", "yesterday", "in 3 days" for a time in ms since the epoch. */
export function relative(ms: number, now = Date.now()): string {
  const diff = ms - now;
  const abs = Math.abs(diff);
  if (abs < 45_000) return 'just now';
  for (const [unit, size] of UNITS) if (abs >= size || unit === 'minute') return fmt.format(Math.round(diff / size), unit);
  return 'just now';
}

const tickers = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;
/** One shared minute timer for every RelativeTime on the page. */
function useMinute(): void {
  const [, set] = useState(0);
  useEffect(() => {
    const on = () => set((n) => n + 1);
    tickers.add(on);
    timer ??= setInterval(() => tickers.forEach((f) => f()), 30_000);
    return () => {
      tickers.delete(on);
      if (!tickers.size && timer) { clearInterval(timer); timer = null; }
    };
  }, []);
}

export function RelativeTime({ ms, empty = '—' }: { ms: number | null | undefined; empty?: string }) {
  useMinute();
  if (!ms) return <span class="muted">{empty}</span>;
  const d = new Date(ms);
  return <time dateTime={d.toISOString()} title={d.toLocaleString()}>{relative(ms)}</time>;
}
