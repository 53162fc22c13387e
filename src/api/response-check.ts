/**
 * Conformance of answers to the API description (NODE_ENV=test only): every success answer must have a
 * documented status, a JSON body must match the operation's response schema exactly as OpenAPI states it
 * (the generated JSON Schema, so an undocumented extra field fails too), and a non-JSON body must carry a
 * documented media type. The whole test suite thereby checks /api/openapi.json against real answers.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { HttpResponse } from '../http/types.js';
import { successStatus, type RouteDef } from './define.js';

// ajv-formats is CommonJS: under Node's ESM loader the plugin is on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/** JSON pointer segment escaping (RFC 6901). */
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const mediaMatches = (actual: string, declared: string) =>
  declared.endsWith('/*') ? actual.startsWith(declared.slice(0, -1)) : actual === declared;

export type ResponseCheck = (method: string, path: string, def: Omit<RouteDef, 'op'>, answer: HttpResponse) => string | null;

/** A checker over one OpenAPI document; answers a problem ("field path: what is wrong") or null. */
export function responseChecker(doc: Record<string, unknown>): ResponseCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  const compiled = new Map<string, ValidateFunction>();
  const validator = (method: string, path: string, status: number) => {
    const ref = `openapi#/${pointer('paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`;
    let v = compiled.get(ref);
    if (!v) compiled.set(ref, (v = ajv.compile({ $ref: ref })));
    return v;
  };

  return (method, path, def, answer) => {
    const status = answer.status ?? 200;
    if (status < 200 || status >= 300) return null;
    const documented = [successStatus(def), ...(def.alsoStatus ?? [])];
    if (!documented.includes(status)) return `status ${status} is not documented (documents ${documented.join(', ')})`;
    let body = answer.body;
    if (status === 204) return body === undefined || body === null ? null : 'a 204 answer carries a body';
    if (body === undefined || body === null) return 'answered no body but documents one';
    const header = Object.entries(answer.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    const type = (header ?? (typeof body === 'string' || Buffer.isBuffer(body) ? 'application/octet-stream' : 'application/json')).split(';')[0].trim();
    if (def.produces) {
      if (!def.produces.contentTypes.some((d) => mediaMatches(type, d))) return `media type ${type} is not documented (documents ${def.produces.contentTypes.join(', ')})`;
    } else if (type !== 'application/json') return `answers ${type} but documents no media type`;
    if (type !== 'application/json') return null;
    if (!def.response) return 'answers JSON but documents no response schema';
    try {
      body = JSON.parse(typeof body === 'string' || Buffer.isBuffer(body) ? body.toString() : JSON.stringify(body));
    } catch { return 'body is not valid JSON'; }
    const validate = validator(method, path, status);
    if (validate(body)) return null;
    const e = validate.errors![0];
    const at = [...e.instancePath.split('/').slice(1), ...(e.params.additionalProperty ? [e.params.additionalProperty as string] : [])]
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
    return `${at || '(body)'}: ${e.message}`;
  };
}
