/**
 * Argument schemas of tools (HTTP tools, MCP tools, page tools) are JSON Schema; ajv checks them.
 * One shared ajv instance; compiled validators are cached by schema text so each schema compiles once.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under Node's ESM loader the plugin is on `.default`.
const addFormats = ((formatsModule as unknown as { default?: typeof formatsModule }).default ?? formatsModule) as unknown as (a: Ajv) => void;

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

const MAX_CACHED = 500;
const cache = new Map<string, ValidateFunction>();

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

/**
 * Compiles (once) a tool's argument schema. `$schema` is dropped: tools written for draft 2020-12 or
 * draft-07 use the same keywords in practice, and ajv would otherwise refuse an unknown meta-schema.
 */
export function compileArgsSchema(schema: Record<string, unknown>): ValidateFunction {
  const { $schema: _ignored, ...rest } = schema;
  const key = JSON.stringify(rest);
  let fn = cache.get(key);
  if (fn) {
    cache.delete(key);
    cache.set(key, fn); // keep recently used ones
    return fn;
  }
  try {
    fn = ajv.compile(rest);
  } catch (err) {
    throw new SchemaError(`not a usable JSON Schema: ${(err as Error).message}`);
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, fn);
  return fn;
}

/** Checks a schema given for a tool's arguments: an object schema ajv can compile. Returns the reason it is not, or null. */
export function argsSchemaProblem(schema: unknown): string | null {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
  const s = schema as Record<string, unknown>;
  if (s.type !== 'object') return 'must have type "object" (tool arguments are always an object)';
  try {
    compileArgsSchema(s);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

/** Readable problems ("city: must be string"), at most five. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).slice(0, 5).map((e) => {
    const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : '';
    const field = [path, missing].filter(Boolean).join('.');
    return field ? `${field}: ${e.message}` : `arguments: ${e.message}`;
  }).join('; ');
}

/** Validates arguments against a schema; returns null when they pass, else a readable description of the problems. */
export function argsProblem(schema: Record<string, unknown>, args: unknown): string | null {
  const validate = compileArgsSchema(schema);
  return validate(args) ? null : describeErrors(validate.errors);
}
