import type { z } from 'zod';
import type { AppContext } from '../app/context.js';
import type { Principal } from '../auth/principal.js';
import type { HttpRequest, HttpResponse, SocketEndpoint } from '../http/types.js';
import type { Method } from './operations.js';
import type { Access } from '../auth/roles.js';

export interface ApiContext<B = unknown, Q = unknown> {
  app: AppContext;
  req: HttpRequest;
  params: Record<string, string>;
  /** The JSON body parsed by the route's body schema (undefined without one). */
  body: B;
  /** The query parsed by the route's query schema (the raw URLSearchParams are in req.query). */
  query: Q;
  /** Null only on public routes. */
  principal: Principal | null;
  /** The caller's workspace; throws on public routes where there is none. */
  readonly workspaceId: string;
  /** Records an audit entry for a change made by a person or token (who, what, when, target). */
  audit(action: string, target: { type: string; id: string } | null, detail?: Record<string, unknown>): Promise<void>;
}

const REPLY = Symbol('reply');
export type Reply = HttpResponse & { [REPLY]: true };
/** Return this from a handler for full control of status, headers, cookies or a non-JSON body. */
export const reply = (r: HttpResponse): Reply => ({ ...r, [REPLY]: true });
export const isReply = (v: unknown): v is Reply => !!v && typeof v === 'object' && REPLY in v;

interface RouteBase<B, Q> {
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  /** Response body schema for OpenAPI; in NODE_ENV=test every JSON answer is checked against it (src/api/response-check.ts). */
  response?: z.ZodType;
  /** Status of a plain (non-reply) answer: 200 when it answers a body, 204 when it answers nothing. */
  status?: number;
  /** Further success statuses a reply() may use (a PUT answers 201 when it creates, 200 when it replaces). */
  alsoStatus?: number[];
  /** Non-JSON answers: their media types ('image/*' matches any image) and what the body is. */
  produces?: { contentTypes: string[]; description: string };
  /** Body is not JSON (uploads): the handler reads req.body itself. */
  rawBody?: { contentTypes: string[]; description: string };
  /** Largest body: a number of bytes, or 'upload' for the configured UPLOAD_LIMIT_BYTES. */
  bodyLimitBytes?: number | 'upload';
  handler(ctx: ApiContext<B, Q>): Promise<unknown> | unknown;
}

/** A spec operation, named by its table key, e.g. 'PATCH /api/v1/bots/{id}'. */
export interface SpecRoute<B = any, Q = any> extends RouteBase<B, Q> {
  op: string;
}

/** A route outside the spec's table (widget endpoints, health): described in OpenAPI under its tag. */
export interface ExtraRoute<B = any, Q = any> extends RouteBase<B, Q> {
  method: Method | 'OPTIONS';
  path: string;
  access: Access;
  tag: string;
  summary: string;
  cors?: boolean;
  /** Leave out of OpenAPI (static assets). */
  hidden?: boolean;
}

export type RouteDef = SpecRoute | ExtraRoute;

/** The success status OpenAPI documents first, and the one a plain answer gets. */
export const successStatus = (def: Omit<RouteDef, 'op'>) => def.status ?? (def.response || def.produces ? 200 : 204);

const DOCUMENTED_AS = new WeakMap<z.ZodType, { schema: z.ZodType; description: string }>();
/**
 * Validates with `validator` but documents (OpenAPI) as `schema`: for a body field that is checked later by its
 * own service (a bot config is merged, then parsed) while the API reference still shows its real shape.
 */
export function documentedAs<T extends z.ZodType>(validator: T, schema: z.ZodType, description: string): T {
  DOCUMENTED_AS.set(validator, { schema, description });
  return validator;
}
export const documentedShape = (validator: z.ZodType) => DOCUMENTED_AS.get(validator);

export const route = <B = unknown, Q = unknown>(r: SpecRoute<B, Q>): SpecRoute<B, Q> => r;
export const extraRoute = <B = unknown, Q = unknown>(r: ExtraRoute<B, Q>): ExtraRoute<B, Q> => r;

/** One area of the API: its routes, its sockets, and what it starts and stops with the server. */
export interface ApiModule {
  name: string;
  routes: RouteDef[];
  sockets?: (app: AppContext) => SocketEndpoint<any>[];
  start?(app: AppContext): Promise<void> | void;
}
