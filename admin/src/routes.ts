/**
 * The signed-in areas: one row per navigation entry. Each area's page is its own chunk, loaded the first time
 * the area is opened (the first page a person sees stays small). `load` resolves to a component taking the
 * route's remaining parts (#/bots/bot_1/versions -> ['bot_1', 'versions']).
 */
import type { ComponentType } from 'preact';
import type { Role } from './types.js';

export type AreaPage = ComponentType<{ rest: string[] }>;

export interface Area {
  path: string;
  text: string;
  /** The lowest role that sees the area at all (viewers see what they may read). */
  minRole: Role;
  /** Nav group heading the entry sits under. */
  group: 'Chat' | 'Build' | 'Workspace';
  load: () => Promise<AreaPage>;
}

export const AREAS: Area[] = [
  { path: 'start', text: 'Get started', minRole: 'admin', group: 'Build', load: () => import('./pages/start/index.js').then((m) => m.default) },
  { path: 'bots', text: 'Bots', minRole: 'viewer', group: 'Build', load: () => import('./pages/bots-area.js').then((m) => m.default) },
  { path: 'try', text: 'Try it', minRole: 'viewer', group: 'Build', load: () => import('./pages/try/index.js').then((m) => m.default) },
  { path: 'providers', text: 'Providers', minRole: 'viewer', group: 'Build', load: () => import('./pages/providers/index.js').then((m) => m.default) },
  { path: 'faces', text: 'Faces', minRole: 'viewer', group: 'Build', load: () => import('./pages/faces/index.js').then((m) => m.default) },
  { path: 'inbox', text: 'Inbox', minRole: 'viewer', group: 'Chat', load: () => import('./pages/inbox/index.js').then((m) => m.default) },
  { path: 'leads', text: 'Leads', minRole: 'viewer', group: 'Chat', load: () => import('./pages/leads.js').then((m) => m.default) },
  { path: 'knowledge', text: 'Knowledge', minRole: 'viewer', group: 'Build', load: () => import('./pages/knowledge/index.js').then((m) => m.default) },
  { path: 'tools', text: 'Tools', minRole: 'viewer', group: 'Build', load: () => import('./pages/tools/index.js').then((m) => m.default) },
  { path: 'webhooks', text: 'Webhooks', minRole: 'admin', group: 'Workspace', load: () => import('./pages/webhooks/index.js').then((m) => m.default) },
  { path: 'analytics', text: 'Analytics', minRole: 'viewer', group: 'Workspace', load: () => import('./pages/analytics/index.js').then((m) => m.default) },
  { path: 'team', text: 'Team', minRole: 'viewer', group: 'Workspace', load: () => import('./pages/team.js').then((m) => m.default) },
  { path: 'tokens', text: 'API tokens', minRole: 'admin', group: 'Workspace', load: () => import('./pages/tokens.js').then((m) => m.default) },
  { path: 'settings', text: 'Settings', minRole: 'viewer', group: 'Workspace', load: () => import('./pages/settings.js').then((m) => m.default) },
  { path: 'privacy', text: 'Data requests', minRole: 'admin', group: 'Workspace', load: () => import('./pages/privacy.js').then((m) => m.default) },
  { path: 'account', text: 'Your account', minRole: 'viewer', group: 'Workspace', load: () => import('./pages/account.js').then((m) => m.default) },
  { path: 'audit', text: 'Audit log', minRole: 'admin', group: 'Workspace', load: () => import('./pages/audit.js').then((m) => m.default) },
];

/** Old addresses that still work: the inbox replaced the conversations list and the live feed. */
const ALIASES: Record<string, string> = { conversations: 'inbox', live: 'inbox' };

export const areaOf = (path: string | undefined): Area | undefined => AREAS.find((a) => a.path === (path && ALIASES[path] ? ALIASES[path] : path));
