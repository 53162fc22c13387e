/**
 * The messages the fake MCP server takes (MCP 2025-06-18 over JSON-RPC 2.0), checked by the fake itself before the
 * SDK's server sees them (strict.ts's checkMessage): a request, notification or response as the specification
 * defines it, with the params of the methods the fake serves. What the SDK would let through (an unknown method
 * answered later, extra keys, a wrong id type) is refused here with JSON-RPC's error codes.
 */
import { z } from 'zod';
import { checkMessage, type Problem } from './strict.js';

const id = z.union([z.string(), z.number().int()]);
const meta = { _meta: z.record(z.string(), z.unknown()).optional() };
const impl = z.object({ name: z.string(), version: z.string(), title: z.string().optional() });

/** Each method the fake serves, with its params (undefined: the method takes none, or only _meta). */
const PARAMS: Record<string, z.ZodType> = {
  initialize: z.object({ ...meta, protocolVersion: z.string(), capabilities: z.record(z.string(), z.unknown()), clientInfo: impl }),
  ping: z.object(meta).optional(),
  'tools/list': z.object({ ...meta, cursor: z.string().optional() }).optional(),
  'tools/call': z.object({ ...meta, name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
  'notifications/initialized': z.object(meta).optional(),
  'notifications/cancelled': z.object({ ...meta, requestId: id, reason: z.string().optional() }),
  'notifications/roots/list_changed': z.object(meta).optional(),
};

const request = z.strictObject({ jsonrpc: z.literal('2.0'), id, method: z.string(), params: z.record(z.string(), z.unknown()).optional() });
const notification = z.strictObject({ jsonrpc: z.literal('2.0'), method: z.string(), params: z.record(z.string(), z.unknown()).optional() });
const response = z.union([
  z.strictObject({ jsonrpc: z.literal('2.0'), id, result: z.record(z.string(), z.unknown()) }),
  z.strictObject({ jsonrpc: z.literal('2.0'), id, error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) }),
]);

/** A JSON-RPC error the fake answers with, and the id it answers (null when the message had none it could read). */
export interface McpRefusal { id: string | number | null; code: number; message: string }

export const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

const said = (p: Problem) => (p.kind === 'missing' ? `missing ${p.path}` : p.kind === 'unknown' ? `unknown field ${p.path}` : p.kind === 'type' ? `${p.path || 'message'}: expected ${p.expected}, got ${p.got}` : p.kind === 'value' ? `${p.path}: ${p.message}` : 'malformed');

/** The first thing wrong with one message (or each of a batch), or null. */
export function checkMcp(body: unknown): McpRefusal | null {
  if (Array.isArray(body)) {
    if (body.length === 0) return { id: null, code: INVALID_REQUEST, message: 'Invalid Request: an empty batch' };
    for (const m of body) { const r = checkMcp(m); if (r) return r; }
    return null;
  }
  const msgId = body && typeof body === 'object' && (typeof (body as any).id === 'string' || typeof (body as any).id === 'number') ? (body as any).id : null;
  if (body && typeof body === 'object' && ('result' in body || 'error' in body)) {
    const p = checkMessage(response, body);
    return p ? { id: msgId, code: INVALID_REQUEST, message: `Invalid Request: ${said(p)}` } : null;
  }
  const isRequest = body && typeof body === 'object' && 'id' in body;
  const p = checkMessage(isRequest ? request : notification, body);
  if (p) return { id: msgId, code: INVALID_REQUEST, message: `Invalid Request: ${said(p)}` };
  const { method, params } = body as { method: string; params?: unknown };
  const schema = PARAMS[method];
  if (!schema) return isRequest ? { id: msgId, code: METHOD_NOT_FOUND, message: `Method not found: ${method}` } : null;
  const bad = checkMessage(schema, params);
  return bad ? { id: msgId, code: INVALID_PARAMS, message: `Invalid params for ${method}: ${said(bad)}` } : null;
}
