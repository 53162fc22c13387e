/**
 * Every operation of the specification (service-api.md, Endpoints) with its access rule: the one table that
 * decides who may call what. Routes are implemented per area in src/api/routes/; an operation without an
 * implementation answers 501 but is still described in OpenAPI.
 */
import type { Access } from '../auth/roles.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  method: Method;
  path: string;
  access: Access;
  tag: string;
  summary: string;
}

export const OPERATIONS: readonly Operation[] = [
  { method: 'GET', path: '/api/v1/setup', access: { kind: 'public' }, tag: 'Sign-in and setup', summary: 'whether first-run setup is needed, and how people can sign in' },
  { method: 'POST', path: '/api/v1/setup', access: { kind: 'public' }, tag: 'Sign-in and setup', summary: 'create the first owner account and workspace' },
  { method: 'POST', path: '/api/v1/auth/login', access: { kind: 'public' }, tag: 'Sign-in and setup', summary: 'sign in with e-mail and password; sets the session cookie' },
  { method: 'POST', path: '/api/v1/auth/logout', access: { kind: 'user', role: 'viewer' }, tag: 'Sign-in and setup', summary: 'sign out' },
  { method: 'GET', path: '/api/v1/me', access: { kind: 'user', role: 'viewer' }, tag: 'Sign-in and setup', summary: 'the signed-in user, workspace, CSRF token and this server' },
  { method: 'POST', path: '/api/v1/me/password', access: { kind: 'user', role: 'viewer' }, tag: 'Sign-in and setup', summary: 'change own password' },
  { method: 'GET', path: '/api/v1/invites/{token}', access: { kind: 'public' }, tag: 'Sign-in and setup', summary: 'what an invitation is for' },
  { method: 'POST', path: '/api/v1/invites/{token}/accept', access: { kind: 'public' }, tag: 'Sign-in and setup', summary: 'join a workspace' },
  { method: 'GET', path: '/api/v1/providers/catalog', access: { kind: 'any' }, tag: 'Providers', summary: 'services that can be connected' },
  { method: 'GET', path: '/api/v1/providers', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Providers', summary: 'connected providers' },
  { method: 'POST', path: '/api/v1/providers', access: { kind: 'scope', scope: 'providers:write' }, tag: 'Providers', summary: 'connect with an API key (checked before saving)' },
  { method: 'PATCH', path: '/api/v1/providers/{id}', access: { kind: 'scope', scope: 'providers:write' }, tag: 'Providers', summary: 'rename, or replace the key' },
  { method: 'DELETE', path: '/api/v1/providers/{id}', access: { kind: 'scope', scope: 'providers:write' }, tag: 'Providers', summary: 'remove' },
  { method: 'POST', path: '/api/v1/providers/{id}/test', access: { kind: 'scope', scope: 'providers:write' }, tag: 'Providers', summary: 'check the key again' },
  { method: 'GET', path: '/api/v1/providers/{id}/models', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Providers', summary: 'models the key can use; cached for a day; query refresh=1 asks again' },
  { method: 'GET', path: '/api/v1/providers/{id}/voices', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Providers', summary: 'voices, with preview URLs' },
  { method: 'GET', path: '/api/v1/providers/{id}/voices/{voiceId}/preview', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Providers', summary: 'short audio sample' },
  { method: 'GET', path: '/api/v1/bots/templates', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Bots', summary: 'starting points for new bots' },
  { method: 'GET', path: '/api/v1/bots', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Bots', summary: 'all bots' },
  { method: 'POST', path: '/api/v1/bots', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'create a bot as a draft' },
  { method: 'GET', path: '/api/v1/bots/{id}', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Bots', summary: 'a bot with draft and published config' },
  { method: 'PATCH', path: '/api/v1/bots/{id}', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'edit the draft: deep patch, or a whole config' },
  { method: 'DELETE', path: '/api/v1/bots/{id}', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'delete' },
  { method: 'POST', path: '/api/v1/bots/{id}/duplicate', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'copy' },
  { method: 'POST', path: '/api/v1/bots/{id}/publish', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'publish the draft' },
  { method: 'GET', path: '/api/v1/bots/{id}/health', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Bots', summary: 'the last voice failure visitors met, with the details for the operator' },
  { method: 'GET', path: '/api/v1/bots/{id}/versions', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Bots', summary: 'published versions' },
  { method: 'POST', path: '/api/v1/bots/{id}/versions/{version}/restore', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'copy a version into the draft' },
  { method: 'POST', path: '/api/v1/bots/{id}/status', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'pause or resume' },
  { method: 'POST', path: '/api/v1/bots/{id}/identity-secret', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Bots', summary: 'new identity-verification secret, returned once' },
  { method: 'POST', path: '/api/v1/bots/{id}/preview', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Bots', summary: 'a token to preview the draft in a widget' },
  { method: 'GET', path: '/api/v1/bots/{id}/embed', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Bots', summary: 'what the embed snippets need' },
  { method: 'GET', path: '/api/v1/faces', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Custom faces', summary: 'custom faces made from photos' },
  { method: 'POST', path: '/api/v1/faces', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Custom faces', summary: 'upload a face: an image plus 468 landmarks produced by the widget function skinFromPhoto' },
  { method: 'DELETE', path: '/api/v1/faces/{id}', access: { kind: 'scope', scope: 'bots:write' }, tag: 'Custom faces', summary: 'delete' },
  { method: 'GET', path: '/api/v1/conversations', access: { kind: 'scope', scope: 'conversations:read' }, tag: 'Conversations', summary: 'newest first; query botId, limit, before' },
  { method: 'GET', path: '/api/v1/conversations/{id}', access: { kind: 'scope', scope: 'conversations:read' }, tag: 'Conversations', summary: 'transcript with tool calls and attachments' },
  { method: 'GET', path: '/api/v1/conversations/{id}/export', access: { kind: 'scope', scope: 'conversations:read' }, tag: 'Conversations', summary: 'download a transcript; query format (md gives Markdown)' },
  { method: 'POST', path: '/api/v1/conversations/{id}/tags', access: { kind: 'scope', scope: 'conversations:write' }, tag: 'Conversations', summary: 'set tags' },
  { method: 'POST', path: '/api/v1/conversations/{id}/close', access: { kind: 'scope', scope: 'conversations:write' }, tag: 'Conversations', summary: 'close' },
  { method: 'DELETE', path: '/api/v1/conversations/{id}', access: { kind: 'scope', scope: 'conversations:write', admin: true }, tag: 'Conversations', summary: 'delete the conversation and its files' },
  { method: 'GET', path: '/api/v1/attachments/{id}', access: { kind: 'scope', scope: 'conversations:read' }, tag: 'Conversations', summary: 'an image from a conversation' },
  { method: 'POST', path: '/api/v1/conversations/{id}/takeover', access: { kind: 'user', role: 'agent' }, tag: 'Conversations', summary: 'take over; the AI goes quiet' },
  { method: 'POST', path: '/api/v1/conversations/{id}/messages', access: { kind: 'user', role: 'agent' }, tag: 'Conversations', summary: 'reply as yourself, or add an internal note' },
  { method: 'POST', path: '/api/v1/conversations/{id}/typing', access: { kind: 'user', role: 'agent' }, tag: 'Conversations', summary: 'show the visitor a typing indication' },
  { method: 'POST', path: '/api/v1/conversations/{id}/release', access: { kind: 'user', role: 'agent' }, tag: 'Conversations', summary: 'hand back to the AI' },
  { method: 'GET', path: '/api/v1/leads', access: { kind: 'scope', scope: 'leads:read' }, tag: 'Leads', summary: 'newest first' },
  { method: 'GET', path: '/api/v1/leads.csv', access: { kind: 'scope', scope: 'leads:read' }, tag: 'Leads', summary: 'leads as CSV' },
  { method: 'POST', path: '/api/v1/leads', access: { kind: 'scope', scope: 'leads:write' }, tag: 'Leads', summary: 'add a lead from outside systems' },
  { method: 'PATCH', path: '/api/v1/leads/{id}', access: { kind: 'scope', scope: 'leads:write' }, tag: 'Leads', summary: "change the lead's status" },
  { method: 'DELETE', path: '/api/v1/leads/{id}', access: { kind: 'scope', scope: 'leads:write', admin: true }, tag: 'Leads', summary: 'delete' },
  { method: 'GET', path: '/api/v1/tools/http', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Tools, MCP servers and secrets', summary: 'HTTP tools' },
  { method: 'POST', path: '/api/v1/tools/http', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'add' },
  { method: 'PATCH', path: '/api/v1/tools/http/{id}', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'change' },
  { method: 'DELETE', path: '/api/v1/tools/http/{id}', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'delete' },
  { method: 'POST', path: '/api/v1/tools/http/{id}/test', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'call with sample arguments' },
  { method: 'GET', path: '/api/v1/tools/mcp', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Tools, MCP servers and secrets', summary: 'MCP servers and their tools' },
  { method: 'POST', path: '/api/v1/tools/mcp', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'connect; its tools are listed at once' },
  { method: 'PATCH', path: '/api/v1/tools/mcp/{id}', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'change; headers and env replace the old ones unless keepHeaders / keepEnv is set' },
  { method: 'POST', path: '/api/v1/tools/mcp/{id}/refresh', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: "list the server's tools again" },
  { method: 'POST', path: '/api/v1/tools/mcp/{id}/test', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'call one of its tools' },
  { method: 'DELETE', path: '/api/v1/tools/mcp/{id}', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'remove' },
  { method: 'GET', path: '/api/v1/secrets', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'secret names; values are never returned' },
  { method: 'PUT', path: '/api/v1/secrets/{name}', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'set a secret' },
  { method: 'DELETE', path: '/api/v1/secrets/{id}', access: { kind: 'scope', scope: 'tools:write' }, tag: 'Tools, MCP servers and secrets', summary: 'delete a secret' },
  { method: 'GET', path: '/api/v1/knowledge', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Knowledge', summary: 'sources' },
  { method: 'POST', path: '/api/v1/knowledge', access: { kind: 'scope', scope: 'knowledge:write' }, tag: 'Knowledge', summary: 'add a source: text, a page, a sitemap, or a site to crawl' },
  { method: 'POST', path: '/api/v1/knowledge/files', access: { kind: 'scope', scope: 'knowledge:write' }, tag: 'Knowledge', summary: 'upload a document (PDF, Markdown, text or HTML)' },
  { method: 'PATCH', path: '/api/v1/knowledge/{id}', access: { kind: 'scope', scope: 'knowledge:write' }, tag: 'Knowledge', summary: 'change a source' },
  { method: 'POST', path: '/api/v1/knowledge/{id}/reindex', access: { kind: 'scope', scope: 'knowledge:write' }, tag: 'Knowledge', summary: 'fetch and index again' },
  { method: 'DELETE', path: '/api/v1/knowledge/{id}', access: { kind: 'scope', scope: 'knowledge:write' }, tag: 'Knowledge', summary: 'remove' },
  { method: 'GET', path: '/api/v1/knowledge/{id}/documents', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Knowledge', summary: 'pages or files of a source' },
  { method: 'POST', path: '/api/v1/knowledge/search', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Knowledge', summary: 'try a search (what the agent would find)' },
  { method: 'GET', path: '/api/v1/knowledge/gaps', access: { kind: 'scope', scope: 'analytics:read' }, tag: 'Knowledge', summary: 'questions the knowledge base could not answer' },
  { method: 'GET', path: '/api/v1/analytics/summary', access: { kind: 'scope', scope: 'analytics:read' }, tag: 'Analytics', summary: 'totals for a period; default period is the last 30 days' },
  { method: 'GET', path: '/api/v1/analytics/timeseries', access: { kind: 'scope', scope: 'analytics:read' }, tag: 'Analytics', summary: 'per day' },
  { method: 'GET', path: '/api/v1/analytics/tools', access: { kind: 'scope', scope: 'analytics:read' }, tag: 'Analytics', summary: 'tool use' },
  { method: 'GET', path: '/api/v1/analytics/usage', access: { kind: 'scope', scope: 'analytics:read' }, tag: 'Analytics', summary: 'provider usage and estimated cost' },
  { method: 'GET', path: '/api/v1/webhooks', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'endpoints; also lists the event names' },
  { method: 'POST', path: '/api/v1/webhooks', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'add; body has url and events; the answer carries the signing secret, returned once' },
  { method: 'PATCH', path: '/api/v1/webhooks/{id}', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'change url, events, active' },
  { method: 'POST', path: '/api/v1/webhooks/{id}/secret', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'new signing secret' },
  { method: 'POST', path: '/api/v1/webhooks/{id}/test', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'send a ping event now' },
  { method: 'GET', path: '/api/v1/webhooks/{id}/deliveries', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'recent deliveries' },
  { method: 'POST', path: '/api/v1/webhooks/deliveries/{id}/redeliver', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'send a delivery again' },
  { method: 'DELETE', path: '/api/v1/webhooks/{id}', access: { kind: 'scope', scope: 'webhooks:write' }, tag: 'Webhooks', summary: 'remove' },
  { method: 'GET', path: '/api/v1/tokens', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'API tokens' },
  { method: 'POST', path: '/api/v1/tokens', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'create a token (name, scopes, optional expiry); value returned once' },
  { method: 'DELETE', path: '/api/v1/tokens/{id}', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'revoke' },
  { method: 'GET', path: '/api/v1/members', access: { kind: 'user', role: 'viewer' }, tag: 'Workspace, team and API tokens', summary: 'people in the workspace and open invitations' },
  { method: 'POST', path: '/api/v1/members/invite', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'invite; returns the link to send' },
  { method: 'DELETE', path: '/api/v1/members/invites/{id}', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'cancel an invitation' },
  { method: 'PATCH', path: '/api/v1/members/{id}', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'change a role' },
  { method: 'DELETE', path: '/api/v1/members/{id}', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'remove someone' },
  { method: 'PUT', path: '/api/v1/me/presence', access: { kind: 'user', role: 'agent' }, tag: 'Workspace, team and API tokens', summary: 'online, away or offline, for handoffs' },
  { method: 'GET', path: '/api/v1/settings', access: { kind: 'scope', scope: 'settings:read' }, tag: 'Workspace, team and API tokens', summary: 'workspace settings' },
  { method: 'PATCH', path: '/api/v1/settings', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'change workspace settings' },
  { method: 'DELETE', path: '/api/v1/workspace', access: { kind: 'user', role: 'owner' }, tag: 'Workspace, team and API tokens', summary: 'delete this hosted workspace and everything in it' },
  { method: 'GET', path: '/api/v1/audit', access: { kind: 'user', role: 'admin' }, tag: 'Workspace, team and API tokens', summary: 'who did what' },
  { method: 'GET', path: '/api/v1/visitors', access: { kind: 'scope', scope: 'privacy:write' }, tag: 'Visitors (data requests)', summary: "find visitors by e-mail or by the customer's own user id" },
  { method: 'GET', path: '/api/v1/visitors/{id}/export', access: { kind: 'scope', scope: 'privacy:write' }, tag: 'Visitors (data requests)', summary: 'everything stored about a visitor' },
  { method: 'DELETE', path: '/api/v1/visitors/{id}', access: { kind: 'scope', scope: 'privacy:write' }, tag: 'Visitors (data requests)', summary: 'erase a visitor and their conversations' },];

export const operationKey = (op: Pick<Operation, 'method' | 'path'>) => `${op.method} ${op.path}`;
export type OperationKey = `${Method} /api/v1/${string}`;
const byKey = new Map(OPERATIONS.map((op) => [operationKey(op), op]));

export function getOperation(key: string): Operation {
  const op = byKey.get(key);
  if (!op) throw new Error(`unknown operation ${key}`);
  return op;
}
