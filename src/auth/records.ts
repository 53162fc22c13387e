/**
 * The stored records of accounts and access: workspaces, users (= members), sessions, API tokens and
 * invitations. Secrets (session cookie values, token values, invitation tokens) are stored only as hashes.
 */
import { perApp } from '../app/context.js';
import type { Role, Scope } from './roles.js';
import type { Doc } from '../store/types.js';
import type { Settings } from './settings.js';

export type Presence = 'online' | 'away' | 'offline';
export const PRESENCES = ['online', 'away', 'offline'] as const;

/** A workspace's own record: `_id` equals its `workspaceId`, so dropWorkspace removes it too. */
export interface WorkspaceRecord extends Doc {
  createdAt: number;
  settings: Settings;
}

/** A person in a workspace: the account and the membership are one record (one workspace per account). */
export interface UserRecord extends Doc {
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  createdAt: number;
  presence: Presence;
  presenceAt: number;
}

export interface SessionRecord extends Doc {
  userId: string;
  /** SHA-256 of the cookie value: a stolen database does not give working cookies. */
  tokenHash: string;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
  /** When expiresAt was last pushed forward (renewal is written at most once an hour). */
  renewedAt: number;
}

export interface ApiTokenRecord extends Doc {
  name: string;
  scopes: Scope[];
  tokenHash: string;
  createdAt: number;
  createdBy: { id: string; name: string };
  expiresAt: number | null;
  lastUsedAt: number | null;
}

export interface InviteRecord extends Doc {
  email: string;
  role: Role;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  invitedBy: { id: string; name: string };
}

/** A fixed-id record whose insert can succeed once: makes POST /setup safe against two racing requests. */
export interface SetupLock extends Doc {
  at: number;
}

export const workspaces = perApp((app) => app.store.collection<WorkspaceRecord>('workspaces'));
export const users = perApp((app) => app.store.collection<UserRecord>('users', {
  indexes: [{ fields: [['email', 1]], unique: true }],
}));
export const sessions = perApp((app) => app.store.collection<SessionRecord>('sessions', {
  indexes: [{ fields: [['tokenHash', 1]], unique: true }, { fields: [['workspaceId', 1], ['userId', 1]] }],
}));
export const apiTokens = perApp((app) => app.store.collection<ApiTokenRecord>('api_tokens', {
  indexes: [{ fields: [['tokenHash', 1]], unique: true }],
}));
export const invites = perApp((app) => app.store.collection<InviteRecord>('invites', {
  indexes: [{ fields: [['tokenHash', 1]], unique: true }, { fields: [['workspaceId', 1], ['email', 1]] }],
}));
export const setupLocks = perApp((app) => app.store.collection<SetupLock>('setup_lock'));
export const SETUP_LOCK_ID = 'setup_first_workspace';

/** E-mail addresses are compared case-insensitively. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** What the API shows of a person: never the password hash. */
export function userView(u: UserRecord) {
  return { id: u._id, name: u.name, email: u.email, role: u.role, presence: u.presence, presenceAt: u.presenceAt, createdAt: u.createdAt };
}
