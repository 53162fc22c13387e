import { parse, serialize, type SerializeOptions } from 'cookie';

export function parseCookies(header: string | undefined): Record<string, string> {
  if (!header) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parse(header))) if (v !== undefined) out[k] = v;
  return out;
}

export function serializeCookie(name: string, value: string, options: SerializeOptions): string {
  return serialize(name, value, options);
}
