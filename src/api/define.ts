import type { z } from 'zod';
import type { AppContext } from '../app.js';
import type { Principal } from '../auth/principal.js';
import type { HttpRequest, HttpResponse, SocketEndpoint } from '../http/types.js';
import type { Access, Method } from './operations.js';

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
  /** Response body schema for OpenAPI (and shape checks in tests). */
  response?: z.ZodType;
  /** Status of a plain (non-reply) answer: 200 unless set. */
  status?: number;
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

export const route = <B = unknown, Q = unknown>(r: SpecRoute<B, Q>): SpecRoute<B, Q> => r;
export const extraRoute = <B = unknown, Q = unknown>(r: ExtraRoute<B, Q>): ExtraRoute<B, Q> => r;

/** One area of the API: its routes, its sockets, and what it starts and stops with the server. */
export interface ApiModule {
  name: string;
  routes: RouteDef[];
  sockets?: (app: AppContext) => SocketEndpoint<any>[];
  start?(app: AppContext): Promise<void> | void;
}
