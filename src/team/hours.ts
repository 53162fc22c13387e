/**
 * Opening hours (bot-config.md, behavior.hours): weekly periods in an IANA time zone, closed holidays.
 * A period whose close is not after its open runs past midnight into the next day ("22:00" to "02:00").
 */
export interface OpenPeriod { day: number; open: string; close: string }
export interface Hours {
  enabled: boolean;
  timezone: string;
  weekly: OpenPeriod[];
  holidays: string[];
  scope: 'handoff' | 'bot';
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock view of an instant in a zone: weekday (0 = Sunday), date YYYY-MM-DD and minutes since midnight. */
export function localTime(ms: number, timeZone: string): { day: number; date: string; minutes: number } {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    day: WEEKDAYS[parts.weekday] ?? 0,
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether the hours are open at `ms`. Hours that are not enabled are always open. */
export function isOpen(hours: Hours, ms: number): boolean {
  if (!hours.enabled) return true;
  const now = localTime(ms, hours.timezone);
  if (hours.holidays.includes(now.date)) return false;
  const yesterday = (now.day + 6) % 7;
  return hours.weekly.some((p) => {
    const open = toMinutes(p.open);
    const close = toMinutes(p.close);
    if (close > open) return p.day === now.day && now.minutes >= open && now.minutes < close;
    // Overnight period: the evening part today, the early-morning part the day after.
    return (p.day === now.day && now.minutes >= open) || (p.day === yesterday && now.minutes < close);
  });
}
