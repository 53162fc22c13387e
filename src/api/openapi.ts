import { z } from 'zod';
import { SERVER_VERSION } from '../config/index.js';
import type { BuiltApi } from './build.js';
import { documentedShape, successStatus, type RouteDef } from './define.js';
import type { Access } from '../auth/roles.js';

const ErrorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object', required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: ['bad_request', 'invalid', 'unauthorized', 'forbidden', 'csrf', 'not_found', 'conflict', 'rate_limited', 'internal', 'unavailable', 'not_implemented', 'payload_too_large', 'insufficient_storage'] },
        message: { type: 'string', description: 'Human text; for validation it names the field path, then the problem.' },
        details: {},
      },
    },
  },
};

/** Named schemas (zod `.meta({ id })`) are hoisted here once per direction instead of inlined in every operation. */
let components: Record<string, unknown> = {};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, {
    io, unrepresentable: 'any', target: 'draft-2020-12',
    // A field documented as another schema (define.ts documentedAs) shows that schema by reference.
    override: (ctx) => {
      const shown = documentedShape(ctx.zodSchema as unknown as z.ZodType);
      if (!shown) return;
      for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[k];
      Object.assign(ctx.jsonSchema, jsonSchema(shown.schema, io), { description: shown.description });
    },
  }) as Record<string, unknown>;
  delete s.$schema;
  const suffix = io === 'input' ? 'Input' : '';
  const defs = (s.$defs ?? {}) as Record<string, unknown>;
  delete s.$defs;
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    if (typeof o.$ref === 'string' && o.$ref.startsWith('#/$defs/')) return { ...o, $ref: `#/components/schemas/${o.$ref.slice(8)}${suffix}` };
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, rewrite(x)]));
  };
  for (const [name, def] of Object.entries(defs)) components[`${name}${suffix}`] ??= rewrite(def);
  // A schema that is itself named comes back as { $ref } plus its own body: keep the reference only.
  const out = rewrite(s) as Record<string, unknown>;
  const id = (schema.meta?.() as { id?: string } | undefined)?.id;
  if (id) { components[`${id}${suffix}`] ??= out; return { $ref: `#/components/schemas/${id}${suffix}` }; }
  return out;
}

/** The documented success answer: nothing (204), a JSON schema, or the media types of a non-JSON body. */
function successResponse(def: RouteDef): Record<string, unknown> {
  if (def.produces) {
    const content = Object.fromEntries(def.produces.contentTypes.map((type) => [type, {
      schema: type.includes('json') && def.response ? jsonSchema(def.response, 'output')
        : /^(image|audio|video)\//.test(type) || type === 'application/octet-stream' ? { type: 'string', contentMediaType: type }
        : { type: 'string' },
    }]));
    return { description: def.produces.description, content };
  }
  if (def.response) return { description: 'Success', content: { 'application/json': { schema: jsonSchema(def.response, 'output') } } };
  return { description: 'Done; no content' };
}

function describeAccess(a: Access): string {
  switch (a.kind) {
    case 'public': return 'Public: no credentials.';
    case 'any': return 'Any API token or signed-in user.';
    case 'scope': return `API token with scope \`${a.scope}\`${a.admin ? ' and an admin-level scope' : ''}, or a signed-in user whose role is high enough.`;
    case 'user': return `Signed-in session only (role ${a.role} or higher); API tokens are refused.`;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Alternatives, each a set of schemes sent together: a session that changes something also sends its CSRF token. */
function security(a: Access, method: string) {
  if (a.kind === 'public') return [];
  const session = SAFE_METHODS.has(method) ? { session: [] } : { session: [], csrf: [] };
  if (a.kind === 'user') return [session];
  return [{ bearer: a.kind === 'scope' ? [a.scope] : [] }, session];
}

/** OpenAPI 3.1 from the operation table and the same zod schemas that validate requests. */
export function buildOpenApi(api: BuiltApi, publicUrl: string): Record<string, unknown> {
  components = {};
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const op of api.described) {
    tags.add(op.tag);
    const def = op.def;
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (def?.query) {
      const qs = jsonSchema(def.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(qs.properties ?? {})) {
        params.push({ name, in: 'query', required: (qs.required ?? []).includes(name), schema } as never);
      }
    }
    const responses: Record<string, unknown> = {};
    if (!def) responses['501'] = { description: 'Not built yet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    else {
      const success = successResponse(def);
      for (const status of [successStatus(def), ...(def.alsoStatus ?? [])]) responses[String(status)] = success;
    }
    responses.default = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const operation: Record<string, unknown> = {
      operationId: `${op.method.toLowerCase()}${op.path.replace(/^\/api\/v1/, '').replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string) => (c ? c.toUpperCase() : ''))}`,
      summary: op.summary,
      description: describeAccess(op.access)
        + (op.access.kind !== 'public' && !SAFE_METHODS.has(op.method) ? ' With a session, also send X-CSRF-Token.' : '')
        + (def ? '' : ' Not built yet in this release: answers 501.'),
      tags: [op.tag],
      parameters: params,
      security: security(op.access, op.method),
      responses,
    };
    if (def?.rawBody) {
      operation.requestBody = { required: true, description: def.rawBody.description, content: Object.fromEntries(def.rawBody.contentTypes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) };
    } else if (def?.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(def.body, 'input') } } };
    }
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Chat Agent Service API', version: SERVER_VERSION, description: 'REST API of the self-hosted chat-agent server. Errors are `{ error: { code, message } }`.' },
    servers: [{ url: publicUrl }],
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Error: ErrorSchema, ...components },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'API token created by an admin (Authorization: Bearer <token>).' },
        session: {
          type: 'apiKey', in: 'cookie', name: 'sc_session',
          description: 'Session cookie from POST /api/v1/auth/login. A browser signed in to this server sends it by itself (this reference too); POST, PUT, PATCH and DELETE also need csrf.',
        },
        csrf: {
          type: 'apiKey', in: 'header', name: 'X-CSRF-Token',
          description: "The session's CSRF token: csrfToken in the answer of POST /api/v1/auth/login or GET /api/v1/me. Required with the session cookie on POST, PUT, PATCH and DELETE; not with an API token. This reference fills it in when you are signed in.",
        },
      },
    },
  };
}
