/**
 * The stored records of accounts and access: workspaces, users (= members), sessions, API tokens and
 * invitations. Secrets (session cookie values, token values, invitation tokens) are stored only as hashes.
 */
import type { RecordSpecs } from '../app/records.js';
import type { Role, Scope } from './roles.js';
import type { Collection, Doc } from '../store/types.js';
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

declare module '../app/records.js' {
  interface Records {
    workspaces: Collection<WorkspaceRecord>;
    users: Collection<UserRecord>;
    sessions: Collection<SessionRecord>;
    apiTokens: Collection<ApiTokenRecord>;
    invites: Collection<InviteRecord>;
    setupLocks: Collection<SetupLock>;
  }
}
/** Accounts' collections (opened once at start-up: src/records-root.ts). */
export const authRecords = {
  workspaces: { name: 'workspaces' },
  users: { name: 'users', indexes: [{ fields: [['email', 1]], unique: true }] },
  sessions: { name: 'sessions', indexes: [{ fields: [['tokenHash', 1]], unique: true }, { fields: [['workspaceId', 1], ['userId', 1]] }] },
  apiTokens: { name: 'api_tokens', indexes: [{ fields: [['tokenHash', 1]], unique: true }] },
  invites: { name: 'invites', indexes: [{ fields: [['tokenHash', 1]], unique: true }, { fields: [['workspaceId', 1], ['email', 1]] }] },
  setupLocks: { name: 'setup_lock' },
} satisfies RecordSpecs<'workspaces' | 'users' | 'sessions' | 'apiTokens' | 'invites' | 'setupLocks'>;
export const SETUP_LOCK_ID = 'setup_first_workspace';

/** E-mail addresses are compared case-insensitively. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** What the API shows of a person: never the password hash. */
export function userView(u: UserRecord) {
  return { id: u._id, name: u.name, email: u.email, role: u.role, presence: u.presence, presenceAt: u.presenceAt, createdAt: u.createdAt };
}
