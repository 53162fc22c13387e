/**
 * Strict fakes: each endpoint of a fake declares the request it takes once (a zod schema modelled on the real API's
 * reference, and whether the body is JSON or multipart), and a request the real service would refuse is refused the
 * same way: malformed JSON, the wrong content type, a missing or mistyped field, an unknown one where the API rejects
 * unknown fields. What is wrong is found here; how the API words it, with which status and in which error shape, is
 * the fake's own `refuse` (each API says it differently). WebSocket fakes check each client message with
 * `checkMessage` and send their API's error event.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';

/** What is wrong with a request, before an API words it. `path` is the field ('messages[0].role'), '' for the body. */
export type Problem =
  | { kind: 'malformed' }
  | { kind: 'content_type'; wants: 'json' | 'multipart'; got: string }
  | { kind: 'missing'; path: string }
  | { kind: 'type'; path: string; expected: string; got: string; input: unknown }
  | { kind: 'unknown'; path: string; key: string }
  /** `worded`: the message is the API's own (a schema's refinement), not zod's. */
  | { kind: 'value'; path: string; message: string; worded: boolean };

/** One endpoint: `route` is "METHOD /path" or a RegExp matched against it. */
export interface Endpoint {
  route: string | RegExp;
  body: 'json' | 'multipart';
  schema: z.ZodType;
  /** The request message's name where the API's wording uses it (Gemini: GenerateContentRequest). */
  name?: string;
}

/** How a fake's API refuses a request: status, wording and error shape. */
export type Refuse = (res: ServerResponse, problem: Problem, endpoint?: Endpoint) => void;

export interface ParsedBody {
  /** Parsed JSON; for multipart, the fields (files as { filename, type, size, data }); the raw bytes otherwise. */
  body: any;
  problem: Problem | null;
}

/** Parses a request body as the content type says (multipart with undici's parser, as the real services' own). */
export async function parseBody(raw: Buffer, contentType: string): Promise<ParsedBody> {
  if (raw.length === 0) return { body: undefined, problem: null };
  if (/^application\/json\b/i.test(contentType)) {
    try {
      return { body: JSON.parse(raw.toString('utf8')), problem: null };
    } catch {
      return { body: raw, problem: { kind: 'malformed' } };
    }
  }
  if (/^multipart\/form-data\b/i.test(contentType)) {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
    } catch {
      return { body: raw, problem: { kind: 'malformed' } };
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of form.entries()) {
      out[k] = typeof v === 'string' ? v : { filename: v.name, type: v.type, size: v.size, data: Buffer.from(await v.arrayBuffer()) };
    }
    return { body: out, problem: null };
  }
  return { body: raw, problem: null };
}

export function endpointFor(endpoints: readonly Endpoint[], method: string, path: string): Endpoint | undefined {
  const route = `${method} ${path}`;
  return endpoints.find((e) => (typeof e.route === 'string' ? e.route === route : e.route.test(route)));
}

/** The first thing the endpoint refuses in this request, or null. */
export function checkRequest(endpoint: Endpoint, contentType: string, parsed: ParsedBody): Problem | null {
  const wants = endpoint.body === 'json' ? /^application\/json\b/i : /^multipart\/form-data\b/i;
  if (!wants.test(contentType)) return { kind: 'content_type', wants: endpoint.body, got: contentType || '(none)' };
  if (parsed.problem) return parsed.problem;
  return checkValue(endpoint.schema, parsed.body ?? {});
}

/** A WebSocket client message checked against its schema (JSON already parsed). */
export function checkMessage(schema: z.ZodType, message: unknown): Problem | null {
  return checkValue(schema, message);
}

function checkValue(schema: z.ZodType, value: unknown): Problem | null {
  const r = schema.safeParse(value, { reportInput: true });
  return r.success ? null : problemOf(r.error.issues[0]);
}

/** 'messages[0].content' from zod's path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '');
}

function problemOf(issue: z.core.$ZodIssue): Problem {
  const path = fieldPath(issue.path);
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return { kind: 'missing', path };
    return { kind: 'type', path, expected: issue.expected, got: typeName(issue.input), input: issue.input };
  }
  if (issue.code === 'unrecognized_keys') return { kind: 'unknown', path: path ? `${path}.${issue.keys[0]}` : issue.keys[0], key: issue.keys[0] };
  // A union of objects reports the branch that came closest, so "missing x" stays "missing x".
  if (issue.code === 'invalid_union' && issue.errors.length) {
    const inner = issue.errors.map((e) => e[0]).filter(Boolean).sort((a, b) => b.path.length - a.path.length)[0];
    if (inner) return problemOf({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue);
  }
  return { kind: 'value', path, message: issue.message, worded: !ZOD_WORDING.test(issue.message) };
}

// zod's own messages (a schema that words a refusal as its API does gives its own).
const ZOD_WORDING = /^(Too small|Too big|Invalid input|Invalid string|Invalid option|Invalid number|Invalid element|Invalid key|Invalid value)/;

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v;
}

/** A multipart file part as parseBody records it. */
export const filePart = z.object({ filename: z.string(), type: z.string(), size: z.number().int().positive(), data: z.instanceof(Buffer) }, { error: 'expected a file' });
