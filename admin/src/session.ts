/** What the signed-in pages share: the person, their workspace, the live socket, and what their role allows. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { LiveClient } from './live.js';
import type { Me, Role } from './types.js';

const RANK: Record<Role, number> = { viewer: 0, agent: 1, admin: 2, owner: 3 };

export interface Session {
  me: Me;
  live: LiveClient;
  /** True when the signed-in person has at least this role. */
  atLeast(role: Role): boolean;
}

export const SessionContext = createContext<Session | null>(null);

export function sessionOf(me: Me, live: LiveClient): Session {
  return { me, live, atLeast: (role) => RANK[me.user.role] >= RANK[role] };
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}
