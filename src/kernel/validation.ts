/**
 * Validation messages a person can act on: "<field path>: <what is wrong and what is expected>", e.g.
 * "name: required (a string up to 80 characters)". zod's own words ("Invalid input: expected string, received
 * undefined") are replaced through a per-parse error map; messages a schema gives itself are kept. Text values are
 * never echoed back (a secret pasted into the wrong field must not reach logs), except the option a choice rejects.
 */
import { z } from 'zod';
import { fromZodIssues } from './errors.js';

type RawIssue = z.core.$ZodRawIssue;
type Issue = z.core.$ZodIssue;
type JsonSchema = Record<string, any>;

export interface ValidateOptions {
  /** Prefix of every path ('query' for query strings). */
  prefix?: string;
  /** Name of the value itself, for a problem with the whole of it (default 'body'). */
  root?: string;
  /** What the keys of an object are called in messages: 'field' (default) or 'setting'. */
  noun?: string;
}

/** Parses `value`; throws one 422 `invalid` ApiError naming every problem (up to ten in the message, all in details). */
export function validate<T>(schema: z.ZodType<T>, value: unknown, opts: ValidateOptions = {}): T {
  const result = schema.safeParse(value, { error: issueMessages(opts.noun) });
  if (result.success) return result.data;
  const problems = flatten(result.error.issues).map((p) => (p.path.length || opts.prefix ? p : { ...p, path: [opts.root ?? 'body'] }));
  throw fromZodIssues(problems, opts.prefix);
}

const maps = new Map<string, z.core.$ZodErrorMap>();

/** The zod error map behind `validate`, for callers that parse themselves (one per noun, made once). */
export function issueMessages(noun = 'field'): z.core.$ZodErrorMap {
  let map = maps.get(noun);
  if (!map) {
    map = (iss) => {
      try {
        return describe(iss, noun);
      } catch {
        return undefined; // an issue shape this does not know keeps zod's words rather than failing the request
      }
    };
    maps.set(noun, map);
  }
  return map;
}

function describe(iss: RawIssue, noun: string): string | undefined {
  const input: unknown = iss.input;
  switch (iss.code) {
    case 'invalid_type':
      return input === undefined ? `required (${expected(iss.inst)})` : `must be ${expected(iss.inst)}, not ${received(input)}`;
    case 'too_small':
    case 'too_big':
      return bounds(iss, input);
    case 'invalid_value': {
      const want = iss.values.length === 1 ? JSON.stringify(iss.values[0]) : `one of ${orList(iss.values.map(show))}`;
      return `must be ${want}${input === undefined ? '' : `, not ${shownInput(input)}`}`;
    }
    case 'invalid_format':
      return format(iss);
    case 'not_multiple_of':
      return `must be a multiple of ${String(iss.divisor)}`;
    case 'unrecognized_keys': {
      const accepted = Object.keys((iss.inst as { _zod?: { def?: { shape?: object } } })?._zod?.def?.shape ?? {});
      const guess = iss.keys.length === 1 ? closest(iss.keys[0], accepted) : undefined;
      return `unknown ${noun}${guess ? `; did you mean ${guess}?` : ''}${accepted.length ? ` (accepted: ${accepted.slice(0, 40).join(', ')})` : ''}`;
    }
    case 'invalid_union': {
      if ('discriminator' in iss && iss.discriminator) {
        const options = ((iss as { options?: unknown[] }).options ?? []).map(show);
        const value = (input as Record<string, unknown> | undefined)?.[iss.discriminator];
        return value === undefined ? `required (one of ${orList(options)})` : `must be one of ${orList(options)}, not ${shownInput(value)}`;
      }
      return `must be ${expected(iss.inst)}${input === undefined ? '' : `, not ${received(input)}`}`;
    }
    case 'invalid_key':
      return `not accepted as a key: ${iss.issues[0]?.message ?? 'not valid'}`;
    case 'invalid_element':
      return `has an entry that is not valid: ${iss.issues[0]?.message ?? 'not valid'}`;
    case 'custom':
      return 'is not accepted here';
    default:
      return undefined;
  }
}

/** A union's problems come from its closest alternative (the one that got furthest), with their own paths. */
function flatten(issues: readonly Issue[], base: PropertyKey[] = []): Array<{ path: PropertyKey[]; message: string }> {
  return issues.flatMap((i) => {
    const path = [...base, ...i.path];
    if (i.code === 'unrecognized_keys') return i.keys.map((key) => ({ path: [...path, key], message: i.message }));
    if (i.code === 'invalid_union' && !('discriminator' in i && i.discriminator)) {
      const deeper = i.errors.filter((branch) => branch.some((b) => b.path.length > 0));
      if (deeper.length) return flatten(deeper.reduce((a, b) => (b.length < a.length ? b : a)), path);
    }
    return [{ path, message: i.message }];
  });
}

function bounds(iss: Extract<RawIssue, { code: 'too_small' | 'too_big' }>, input: unknown): string {
  const small = iss.code === 'too_small';
  const limit = String(small ? (iss as { minimum: unknown }).minimum : (iss as { maximum: unknown }).maximum);
  const exact = (iss as { exact?: boolean }).exact;
  const inclusive = iss.inclusive !== false;
  const relation = exact ? 'exactly' : small ? (inclusive ? 'at least' : 'more than') : (inclusive ? 'at most' : 'less than');
  switch (iss.origin) {
    case 'string': {
      if (small && !exact && Number(limit) <= 1) return 'must not be empty';
      const length = typeof input === 'string' ? ` (it has ${[...input].length})` : '';
      return `must be ${relation} ${limit} characters long${length}`;
    }
    case 'array':
    case 'set': {
      if (small && !exact && Number(limit) <= 1) return 'must not be empty';
      const count = Array.isArray(input) ? ` (it has ${input.length})` : input instanceof Set ? ` (it has ${input.size})` : '';
      return `must have ${relation} ${limit} ${Number(limit) === 1 ? 'entry' : 'entries'}${count}`;
    }
    case 'number':
    case 'int':
    case 'bigint':
      return `must be ${relation} ${limit}${typeof input === 'number' || typeof input === 'bigint' ? `, not ${String(input)}` : ''}`;
    default:
      return `must be ${relation} ${limit}`;
  }
}

const FORMATS: Record<string, string> = {
  email: 'an e-mail address', url: 'a URL such as https://example.com', uri: 'a URL such as https://example.com',
  date: 'a date YYYY-MM-DD', datetime: 'a date and time such as 2026-01-31T12:00:00Z', 'date-time': 'a date and time such as 2026-01-31T12:00:00Z',
  time: 'a time HH:MM', uuid: 'a UUID', guid: 'a UUID', ipv4: 'an IPv4 address', ipv6: 'an IPv6 address', json_string: 'JSON text',
  base64: 'base64 text', base64url: 'base64url text', duration: 'an ISO 8601 duration such as PT1H',
};

function format(iss: Extract<RawIssue, { code: 'invalid_format' }>): string {
  const f = iss as { format: string; pattern?: unknown; prefix?: string; suffix?: string; includes?: string };
  switch (f.format) {
    case 'regex': return `must match the pattern ${String(f.pattern).replace(/^\/(.*)\/[a-z]*$/s, '$1')}`;
    case 'starts_with': return `must start with ${JSON.stringify(f.prefix)}`;
    case 'ends_with': return `must end with ${JSON.stringify(f.suffix)}`;
    case 'includes': return `must contain ${JSON.stringify(f.includes)}`;
    case 'lowercase': return 'must be in lower case';
    case 'uppercase': return 'must be in upper case';
    default: return `must be ${FORMATS[f.format] ?? `a valid ${f.format}`}`;
  }
}

/** What a schema accepts, in words: "a string up to 80 characters", "a whole number from 1 to 10", "one of a or b". */
function expected(schema: unknown): string {
  const type = (schema as { _zod?: { def?: { type?: string } } })?._zod?.def?.type;
  if (type === 'object' || type === 'record') return 'an object';
  let json: JsonSchema = {};
  try {
    json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch { /* a schema JSON Schema cannot show: described as "a value" */ }
  return words(json);
}

function words(s: JsonSchema): string {
  const options: JsonSchema[] | undefined = s.anyOf ?? s.oneOf;
  if (options) return orList(options.map(words));
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `one of ${orList(s.enum.map(show))}`;
  const types = [s.type].flat().filter(Boolean) as string[];
  if (types.length > 1) return orList(types.map((type) => words({ ...s, type })));
  switch (types[0]) {
    case 'string': return stringWords(s);
    case 'integer': return `a whole number${range(s)}`;
    case 'number': return `a number${range(s)}`;
    case 'boolean': return 'true or false';
    case 'null': return 'null';
    case 'array': return `a list${sized(s.minItems, s.maxItems, 'entries')}`;
    case 'object': return 'an object';
    default: return 'a value';
  }
}

function stringWords(s: JsonSchema): string {
  if (s.format) return FORMATS[s.format] ?? `a ${s.format} string`;
  const pattern = s.pattern ? ` matching the pattern ${s.pattern}` : '';
  return `a string${sized(s.minLength > 1 ? s.minLength : undefined, s.maxLength, 'characters')}${pattern}`;
}

/** " up to 80 characters", " of 8 to 200 characters", " of at least 8 characters" */
function sized(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return min === max ? ` of exactly ${max} ${unit}` : ` of ${min} to ${max} ${unit}`;
  if (max !== undefined) return ` up to ${max} ${unit}`;
  if (min !== undefined) return ` of at least ${min} ${unit}`;
  return '';
}

/** " from 1 to 10", " (at least 0)"; bounds at the edge of safe integers (zod's own for z.int()) say nothing. */
function range(s: JsonSchema): string {
  const lo = s.minimum > Number.MIN_SAFE_INTEGER ? s.minimum : undefined;
  const hi = s.maximum < Number.MAX_SAFE_INTEGER ? s.maximum : undefined;
  if (lo !== undefined && hi !== undefined) return ` from ${lo} to ${hi}`;
  const parts = [
    lo !== undefined ? `at least ${lo}` : s.exclusiveMinimum !== undefined ? `more than ${s.exclusiveMinimum}` : '',
    hi !== undefined ? `at most ${hi}` : s.exclusiveMaximum !== undefined ? `less than ${s.exclusiveMaximum}` : '',
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(' and ')})` : '';
}

function received(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'number') return Number.isNaN(input) ? 'text that is not a number' : String(input);
  if (typeof input === 'boolean') return String(input);
  if (typeof input === 'string') return 'a string';
  return typeof input === 'object' ? 'an object' : `a ${typeof input}`;
}

/** A value of a closed list, bare when it reads unambiguously ("cascade"), quoted otherwise (""). */
function show(v: unknown): string {
  if (typeof v === 'string') return /^[\w.:/@+-]+$/.test(v) ? v : JSON.stringify(v);
  return String(v);
}

/** The rejected option itself, clipped: options are short words, anything longer is cut. */
function shownInput(v: unknown): string {
  if (typeof v !== 'string') return received(v);
  return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
}

function orList(items: string[]): string {
  if (items.length > 20) return `${items.slice(0, 20).join(', ')}, … (${items.length} options)`;
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}` : items[0] ?? 'nothing';
}

/** The accepted key nearest to a typo (at most two edits apart), if any. */
function closest(key: string, accepted: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of accepted) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/**
 * True when a schema's output and a declared type are the same shape (each assignable to the other), else false.
 * `const check: SchemaMatches<z.infer<typeof S>, Frame> = true` fails to compile when a schema and the wire type
 * another side reads (protocol/) drift apart.
 */
export type SchemaMatches<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
