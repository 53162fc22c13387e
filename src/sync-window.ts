/**
 * A short window in which the embedded store answers synchronously (blocking for the store thread's answer,
 * as SQLite on the event loop did), so that async work made only of store calls completes within the current
 * uWS callback. WebSocket upgrades need this: this uWS build can close a socket whose upgrade finished after
 * the callback returned (res.cork after an await; uNetworking/uWebSockets#1928, fixed upstream by PR #1929).
 * The window closes at the next setImmediate; other store adapters ignore it.
 */
let depth = 0;

export function syncWindowOpen(): boolean {
  return depth > 0;
}

export function openSyncWindow(): void {
  depth++;
  setImmediate(() => { depth--; });
}
