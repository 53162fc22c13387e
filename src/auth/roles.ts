/**
 * Roles and API token scopes (service-api.md, Authentication): who may do what. The operation table
 * (src/api/operations.ts) names these for each endpoint; auth checks them; the workspace actor ranks members.
 */
export type Role = 'viewer' | 'agent' | 'admin' | 'owner';
export const ROLES: readonly Role[] = ['viewer', 'agent', 'admin', 'owner'];
export const roleRank = (r: Role) => ROLES.indexOf(r);

/** Scopes and the role each acts as (service-api.md, Authentication). */
export const SCOPE_ROLES = {
  'bots:read': 'viewer',
  'bots:write': 'admin',
  'conversations:read': 'viewer',
  'conversations:write': 'agent',
  'leads:read': 'viewer',
  'leads:write': 'agent',
  'knowledge:write': 'admin',
  'analytics:read': 'viewer',
  'providers:write': 'admin',
  'tools:write': 'admin',
  'webhooks:write': 'admin',
  'privacy:write': 'admin',
  'settings:read': 'viewer',
} as const satisfies Record<string, Role>;
export type Scope = keyof typeof SCOPE_ROLES;
export const SCOPES = Object.keys(SCOPE_ROLES) as Scope[];

export type Access =
  | { kind: 'public' }
  /** Any API token or signed-in user. */
  | { kind: 'any' }
  /** A token with this scope (and an admin-level scope when admin is set); a session whose role is high enough. */
  | { kind: 'scope'; scope: Scope; admin?: boolean }
  /** A signed-in session only, with at least this role. */
  | { kind: 'user'; role: Role };
