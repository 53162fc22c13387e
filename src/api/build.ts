import type { AppContext } from '../app/context.js';
import { checkAccess } from '../auth/access.js';
import { recordAudit } from '../auth/audit.js';
import { authenticate } from '../auth/authenticate.js';
import { SESSION_COOKIE, sessionCookie } from '../auth/sessions.js';
import { ApiError, badRequest, notImplemented, unauthorized } from '../kernel/errors.js';
import { Router } from '../http/router.js';
import { validate } from '../kernel/validation.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { isReply, successStatus, type ApiContext, type ApiModule, type ExtraRoute, type RouteDef } from './define.js';
import { buildOpenApi } from './openapi.js';
import { getOperation, OPERATIONS, operationKey } from './operations.js';
import type { Access } from '../auth/roles.js';
import { diskState, isDiskFull } from '../store/disk-full.js';
import { ApiRateLimits, isRateLimitedPath } from './rate-limit.js';
import { responseChecker, type ResponseCheck } from './response-check.js';

export interface BuiltApi {
  router: Router;
  /** Spec operations with their implementations (undefined where not built yet), for OpenAPI. */
  described: Array<{ method: string; path: string; access: Access; tag: string; summary: string; def?: RouteDef }>;
}

const isExtra = (r: RouteDef): r is ExtraRoute => 'path' in r;

/** Mounts every module's routes; spec operations without an implementation answer 501 not_implemented. */
export function buildApi(app: AppContext, modules: ApiModule[]): BuiltApi {
  const router = new Router();
  const limits = new ApiRateLimits(app);
  // Under test every answer is checked against the description built below (src/api/response-check.ts).
  let check: ResponseCheck | undefined;
  const checked = (method: string, path: string, def: Omit<RouteDef, 'op'>) =>
    app.config.env === 'test' ? (answer: HttpResponse, req: HttpRequest) => {
      const problem = check?.(method, path, def, answer);
      if (!problem) return;
      const message = `${method} ${path}: answer does not match its OpenAPI description: ${problem}`;
      req.log.error({ operation: `${method} ${path}`, problem }, 'answer does not match its OpenAPI description');
      throw new ApiError('internal', 500, message);
    } : undefined;
  const impls = new Map<string, RouteDef>();
  const described: BuiltApi['described'] = [];
  for (const m of modules) {
    for (const def of m.routes) {
      if (isExtra(def)) {
        router.add(def.method, def.path, handlerFor(app, limits, def, def.access, isRateLimitedPath(def.path), def.hidden ? undefined : checked(def.method, def.path, def)), { cors: def.cors, bodyLimitBytes: bodyLimit(app, def) });
        if (!def.hidden) described.push({ method: def.method, path: def.path, access: def.access, tag: def.tag, summary: def.summary, def });
        continue;
      }
      getOperation(def.op); // throws for a name not in the spec table
      if (impls.has(def.op)) throw new Error(`operation ${def.op} implemented twice`);
      impls.set(def.op, def);
    }
  }
  for (const op of OPERATIONS) {
    const def = impls.get(operationKey(op));
    const handler = def
      ? handlerFor(app, limits, def, op.access, isRateLimitedPath(op.path), checked(op.method, op.path, def))
      : handlerFor(app, limits, { handler: () => { throw notImplemented(`${op.method} ${op.path}`); } }, op.access, isRateLimitedPath(op.path));
    router.add(op.method, op.path, handler, { bodyLimitBytes: def && bodyLimit(app, def) });
    described.push({ ...op, def });
  }
  if (app.config.env === 'test') check = responseChecker(buildOpenApi({ router, described }, app.config.publicUrl));
  return { router, described };
}

const bodyLimit = (app: AppContext, def: RouteDef) =>
  def.bodyLimitBytes === 'upload' ? app.config.uploadLimitBytes : def.bodyLimitBytes;

function handlerFor(app: AppContext, limits: ApiRateLimits, def: Omit<RouteDef, 'op'>, access: Access, limited: boolean, conform?: (answer: HttpResponse, req: HttpRequest) => void) {
  // Most requests send no query: its parse (the schema's defaults) is made once, frozen, not per request.
  let parsedEmpty: unknown;
  const noQuery = () => (parsedEmpty ??= Object.freeze(validate(def.query!, {}, { prefix: 'query' })));
  const handle = async (req: HttpRequest): Promise<HttpResponse> => {
    if (limited) limits.limitAddress(req);
    // A public route answers anyone: a stale or unknown token a client still sends (a widget on a page that also
    // calls the API, a script after its token was revoked) is ignored there, not refused.
    const principal = access.kind === 'public' ? await authenticate(app, req).catch(ignoreUnauthorized) : await authenticate(app, req);
    if (limited) limits.limitToken(principal);
    checkAccess(access, principal, req.method, req.headers['x-csrf-token']);
    const query = def.query ? (req.rawQuery === '' ? noQuery() : validate(def.query, Object.fromEntries(req.query), { prefix: 'query' })) : undefined;
    let body: unknown;
    if (def.body && !def.rawBody) body = validate(def.body, parseJson(req), { root: 'body' });
    const ctx: ApiContext = {
      app, req, params: req.params, body, query, principal,
      get workspaceId() {
        if (!principal) throw unauthorized();
        return principal.workspaceId;
      },
      audit: (action, target, detail) => principal
        ? recordAudit(app, principal.workspaceId, principal, action, target, detail)
        : Promise.resolve(),
    };
    const result = await def.handler(ctx);
    const answer: HttpResponse = isReply(result) ? result
      : result === undefined ? { status: def.status ?? 204 }
      : { status: successStatus(def), body: result };
    conform?.(answer, req);
    // A renewed session re-sends its cookie with a fresh lifetime (sliding 14 days), unless the handler set one.
    if (principal?.kind === 'session' && principal.renewed && !answer.cookies?.length) {
      answer.cookies = [sessionCookie(app, req.cookies[SESSION_COOKIE])];
    }
    return answer;
  };
  // A write the disk had no room for is answered 507 naming the disk (src/store/disk-full.ts), not 500.
  return (req: HttpRequest): Promise<HttpResponse> => handle(req).catch((err: unknown) => {
    throw isDiskFull(err) ? diskState(app).refused(err) : err;
  });
}

function ignoreUnauthorized(err: unknown): null {
  if (err instanceof ApiError && err.code === 'unauthorized') return null;
  throw err;
}

function parseJson(req: HttpRequest): unknown {
  if (req.body.length === 0) return {};
  const type = req.headers['content-type'] ?? '';
  if (type && !type.includes('json')) throw badRequest(`body: send JSON with Content-Type: application/json (got ${type.split(';')[0]})`);
  try { return JSON.parse(req.body.toString('utf8')); } catch { throw badRequest('body: not valid JSON'); }
}
