/**
 * Opening hours (bot-config.md, behavior.hours): weekly periods in an IANA time zone, closed holidays.
 * A period whose close is not after its open runs past midnight into the next day ("22:00" to "02:00").
 */
import { contextFromIdentity, renderField, type BotConfig } from './config/index.js';
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

/**
 * The next instant after `ms` at which isOpen changes, or null when it never does within eight days (always open,
 * never open). Hours change only on a minute that is some period's open or close, or midnight (holidays), so only
 * those minutes are tried, each placed in the zone (corrected once for a daylight-saving jump in between).
 */
export function nextHoursChange(hours: Hours, ms: number): number | null {
  if (!hours.enabled) return null;
  const open = isOpen(hours, ms);
  const marks = new Set([0, ...hours.weekly.flatMap((p) => [toMinutes(p.open), toMinutes(p.close)])]);
  const start = ms - (ms % 60_000);
  const nowMin = localTime(start, hours.timezone).minutes;
  const candidates: Array<{ d: number; m: number }> = [];
  for (let k = 0; k <= 8; k++) for (const m of marks) { const d = m - nowMin + k * 1440; if (d > 0) candidates.push({ d, m }); }
  candidates.sort((a, b) => a.d - b.d);
  for (const { d, m } of candidates) {
    let at = start + d * 60_000;
    const off = (((m - localTime(at, hours.timezone).minutes) % 1440) + 2160) % 1440 - 720;
    at += off * 60_000;
    if (at > ms && isOpen(hours, at) !== open) return at;
  }
  return null;
}

/** The AI is offline now: outside opening hours with scope bot (the widget's config says so; the face sleeps). */
export function botOfflineNow(config: BotConfig, ms: number): boolean {
  const hours = config.behavior.hours;
  return hours.enabled && hours.scope === 'bot' && !isOpen(hours, ms);
}

/** The offline text (texts.offline) with the bot's identity filled in; a handoff outside opening hours sends it too. */
export const offlineText = (config: BotConfig) => renderField('texts.offline', config.texts.offline, contextFromIdentity(config.identity));
