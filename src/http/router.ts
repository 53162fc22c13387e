import type { Handler, RouteOptions } from './types.js';

export interface Route {
  method: string;
  pattern: string;
  handler: Handler;
  options: RouteOptions;
  /** Names of this route's parameters in path order (routes may name the same position differently). */
  paramNames: string[];
  /** "METHOD pattern", the route's name in metrics (made once, not per request). */
  operation: string;
}

interface Node {
  statics: Map<string, Node>;
  param?: Node;
  /** A trailing `*` segment: matches the rest of the path. */
  rest?: { name: string; route: Map<string, Route> };
  routes: Map<string, Route>;
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const newNode = (): Node => ({ statics: new Map(), routes: new Map() });

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/**
 * A segment trie. Patterns use `{name}` for a path parameter and a final `*` for the rest of the path.
 * Static segments win over parameters (`/bots/templates` before `/bots/{id}`).
 */
export class Router {
  private root = newNode();
  /** Routes without parameters by their exact path: the usual request is matched without splitting its path. */
  private exact = new Map<string, Map<string, Route>>();
  readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): void {
    const paramNames = [...pattern.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const route: Route = { method: method.toUpperCase(), pattern, handler, options, paramNames, operation: `${method.toUpperCase()} ${pattern}` };
    let node = this.root;
    const segments = pattern.split('/').filter(Boolean);
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i];
      if (seg === '*') {
        if (i !== segments.length - 1) throw new Error(`'*' must be last in ${pattern}`);
        node.rest ??= { name: 'rest', route: new Map() };
        if (node.rest.route.has(route.method)) throw new Error(`duplicate route ${method} ${pattern}`);
        node.rest.route.set(route.method, route);
        this.routes.push(route);
        return;
      }
      const m = /^\{(\w+)\}$/.exec(seg);
      if (m) {
        node.param ??= newNode();
        node = node.param;
      } else {
        let next = node.statics.get(seg);
        if (!next) node.statics.set(seg, (next = newNode()));
        node = next;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`duplicate route ${method} ${pattern}`);
    node.routes.set(route.method, route);
    if (!paramNames.length) this.exact.set(pattern, node.routes);
    this.routes.push(route);
  }

  match(method: string, path: string): Match {
    const exact = this.exact.get(path)?.get(method);
    if (exact) return { kind: 'found', route: exact, params: NO_PARAMS };
    const segments = path.split('/').filter(Boolean);
    const values: string[] = [];
    const rest = { value: '' };
    const found = this.walk(this.root, segments, 0, values, rest);
    if (!found) return { kind: 'not_found' };
    const route = found.get(method) ?? (method === 'HEAD' ? found.get('GET') : undefined);
    if (route) {
      const params: Record<string, string> = {};
      route.paramNames.forEach((name, i) => { params[name] = values[i]; });
      if (route.pattern.endsWith('*')) params.rest = rest.value;
      return { kind: 'found', route, params };
    }
    return { kind: 'method_not_allowed', allowed: [...found.keys()] };
  }

  private walk(node: Node, segs: string[], i: number, values: string[], rest: { value: string }): Map<string, Route> | null {
    if (i === segs.length) return node.routes.size ? node.routes : null;
    let seg: string;
    try { seg = decodeURIComponent(segs[i]); } catch { return null; }
    const s = node.statics.get(segs[i]);
    if (s) { const r = this.walk(s, segs, i + 1, values, rest); if (r) return r; }
    if (node.param) {
      values.push(seg);
      const r = this.walk(node.param, segs, i + 1, values, rest);
      if (r) return r;
      values.pop();
    }
    if (node.rest) { rest.value = segs.slice(i).join('/'); return node.rest.route; }
    return null;
  }
}
