import type { CollectionSpec } from './types.js';

/** Messages between the embedded store's client (src/store/embedded.ts) and its thread (embedded-thread.ts). */
export type StoreRequest = (
  | { op: 'call'; collection: string; method: string; args: unknown[] }
  | { op: 'ensure'; collection: string; spec: CollectionSpec }
  | { op: 'drop'; workspaceId: string }
  | { op: 'scrub' }
  | { op: 'fault'; code: string | null }
  | { op: 'close' }
) & { id: number };

/** `code`: the error's own code (SQLite's SQLITE_FULL, Node's ENOSPC...), so the server can tell a full disk. */
export interface WireError { kind: 'duplicate' | 'unscoped' | 'error'; message: string; collection?: string; code?: string }

/** Answers come in arrays: one message per committed transaction. */
export type StoreReply =
  | { id: number; ok: true; write?: boolean; value: unknown }
  | { id: number; ok: false; write?: boolean; error: WireError };
