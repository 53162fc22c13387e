import { randomBytes } from 'node:crypto';
import type { Logger } from '../kernel/log.js';

/** Errors that mean a fault in the server's own code (or a library's), not in the document or the site. */
const INTERNAL = new Set(['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError', 'EvalError', 'URIError', 'AggregateError']);

export const isInternalError = (err: unknown): boolean => err instanceof Error && INTERNAL.has(err.name);

/**
 * What a source's owner reads when one of its documents failed. The reasons the server gives on purpose (an
 * unsupported type, a page too large, a site that refused, a provider's answer) are shown as they are; an
 * internal JavaScript error ("Cannot read properties of undefined") says nothing useful to them and something
 * about the server's insides to anyone: it is logged in full under an id, and the reason names only that id.
 */
export function failureReason(log: Logger, err: unknown, context: Record<string, unknown>): string {
  if (!isInternalError(err)) return (err as Error)?.message ?? String(err);
  const id = randomBytes(4).toString('hex');
  log.error({ err, failureId: id, ...context }, 'a knowledge document failed with an internal error');
  return `could not be processed because of an error in the server; see the server log (id ${id})`;
}
