import { parse, serialize, type SerializeOptions } from 'cookie';

export function parseCookies(header: string | undefined): Record<string, string> {
  if (!header) return {};
  // `parse` makes a fresh object per call: cleaned in place rather than copied (this runs on every session request).
  const parsed = parse(header);
  for (const k in parsed) if (parsed[k] === undefined) delete parsed[k];
  return parsed as Record<string, string>;
}

export function serializeCookie(name: string, value: string, options: SerializeOptions): string {
  return serialize(name, value, options);
}
