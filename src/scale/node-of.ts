import type { AppContext } from '../app/context.js';
import { ScaleNode } from './node.js';

/**
 * The context's group port as this process's ScaleNode, for src/scale's own modules (and the few that hand the
 * node to them) that need more than the port: raw commands, leases, requests to one process. Null when the server
 * is one process.
 */
export function nodeOf(app: AppContext): ScaleNode | null {
  return app.scale instanceof ScaleNode ? app.scale : null;
}
