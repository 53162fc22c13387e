import type { Role, Scope } from './roles.js';

/** Who is calling: a signed-in person (session cookie) or a program (API token). */
export type Principal =
  | {
      kind: 'session';
      workspaceId: string;
      userId: string;
      userName: string;
      email: string;
      role: Role;
      sessionId: string;
      csrfToken: string;
      /** Set when this request pushed the session's expiry forward: the answer re-sends the cookie. */
      renewed?: boolean;
    }
  | {
      kind: 'token';
      workspaceId: string;
      tokenId: string;
      name: string;
      scopes: Scope[];
      /** The highest role implied by the scopes. */
      role: Role;
    };

/** A short description for audit entries and logs: never contains secrets. */
export function actorOf(p: Principal): { kind: 'user' | 'token'; id: string; name: string } {
  return p.kind === 'session' ? { kind: 'user', id: p.userId, name: p.userName } : { kind: 'token', id: p.tokenId, name: p.name };
}
