/**
 * For the access matrix: one valid call per spec operation, against real records made through the API.
 * `CALLS` maps "METHOD /path" to a function that returns the path, body and the 2xx status a permitted caller
 * gets. Operations that delete or use up a record make a fresh one for every call.
 */
import sharp from 'sharp';
import type { Role } from '../../src/auth/roles.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { startFakeMcpHttp, type FakeMcpHttp } from '../fakes/mcp-server.js';
import { addMember, DEFAULT_PASSWORD, type TestSession } from '../helpers/auth.js';
import type { TestServer } from '../helpers/server.js';
import { ingestionIdle } from '../knowledge/helpers.js';
import { connect, type FrameClient } from '../team/helpers.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';

/** Who makes the call: their headers and, for a person, their session. */
export interface Caller { headers: Record<string, string>; session?: TestSession }

export interface ValidCall {
  path: string;
  status: number;
  body?: unknown;
  /** A non-JSON body (file uploads). */
  raw?: { bytes: string; contentType: string };
}

export type MakeCall = (who: Caller) => Promise<ValidCall>;

export interface Records {
  s: TestServer;
  owner: TestSession;
  fake: FakeOpenAI;
  mcp: FakeMcpHttp;
  receiver: Receiver;
  providerId: string;
  botId: string;
  conversationId: string;
  visitorId: string;
  attachmentId: string;
  leadId: string;
  httpToolId: string;
  mcpId: string;
  sourceId: string;
  webhookId: string;
  deliveryId: string;
  sockets: FrameClient[];
  close(): Promise<void>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}`;

function must(what: string, r: { status: number; body: any }, status: number): any {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

const LANDMARKS = Array.from({ length: 468 }, (_, i) => [(i % 26) / 26, Math.floor(i / 26) / 18, -0.05 + (i % 10) / 100]);
const image = () => sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 150, b: 120 } } }).png().toBuffer();

/** Makes the shared records every valid call builds on: a provider, a published bot, a conversation, and so on. */
export async function makeRecords(s: TestServer, owner: TestSession): Promise<Records> {
  const [fake, mcp, receiver] = await Promise.all([startFakeOpenAI(), startFakeMcpHttp(), startReceiver()]);
  const as = (method: string, path: string, body?: unknown) => s.request(method, path, { body, headers: owner.headers });
  const sockets: FrameClient[] = [];
  const r = { s, owner, fake, mcp, receiver, sockets } as Records;
  r.providerId = must('connect provider', await as('POST', '/api/v1/providers', { kind: 'openai', name: 'Fake', apiKey: fake.apiKey, baseUrl: fake.baseUrl }), 201).id;
  const bot = must('create bot', await as('POST', '/api/v1/bots', { name: 'Helper' }), 201);
  r.botId = bot.id;
  must('configure bot', await as('PATCH', `/api/v1/bots/${r.botId}`, {
    revision: bot.revision,
    patch: { brain: { connectionId: r.providerId, model: 'gpt-4o-mini' }, vision: { uploads: { maxPerMessage: 1 } } },
  }), 200);
  must('publish bot', await as('POST', `/api/v1/bots/${r.botId}/publish`, {}), 200);
  const chat = await newConversation(r, true);
  r.conversationId = chat.conversationId;
  r.visitorId = chat.visitorId;
  r.attachmentId = chat.attachmentId!;
  r.leadId = must('add lead', await as('POST', '/api/v1/leads', { botId: r.botId, fields: { name: 'Lee Lead', email: 'lead@example.com' } }), 201).id;
  r.httpToolId = must('add HTTP tool', await as('POST', '/api/v1/tools/http', httpTool(r)), 201).id;
  r.mcpId = must('connect MCP server', await as('POST', '/api/v1/tools/mcp', { name: unique('Shop '), url: mcp.url }), 201).id;
  r.sourceId = await textSource(r);
  r.webhookId = must('add webhook', await as('POST', '/api/v1/webhooks', { url: receiver.url, events: ['lead.captured'] }), 201).id;
  r.deliveryId = must('ping webhook', await as('POST', `/api/v1/webhooks/${r.webhookId}/test`), 202).delivery.id;
  r.close = async () => {
    await Promise.all(sockets.map((c) => c.close()));
    await Promise.all([fake.close(), mcp.close(), receiver.close()]);
  };
  return r;
}

/** A visitor talks to the bot through the widget socket: a new conversation (optionally with an image). */
async function newConversation(r: Records, withImage = false): Promise<{ conversationId: string; visitorId: string; attachmentId?: string }> {
  const ws = await connect(`${r.s.url.replace('http', 'ws')}/widget/v1/chat?botId=${r.botId}`);
  r.sockets.push(ws);
  const ready = await ws.frame('ready');
  let attachmentId: string | undefined;
  if (withImage) {
    const up = await r.s.fetch(`/widget/v1/uploads?botId=${r.botId}&visitorToken=${encodeURIComponent(ready.visitorToken)}`, {
      method: 'POST', body: new Uint8Array(await image()), headers: { 'content-type': 'image/png' },
    });
    attachmentId = must('upload image', { status: up.status, body: await up.json() }, 201).id;
  }
  ws.send({ t: 'message', text: 'Hello there', ...(attachmentId ? { attachments: [attachmentId] } : {}) });
  const conv = await ws.frame('conversation');
  await ws.frame('message', (f) => f.message.role === 'assistant');
  const detail = must('read conversation', await r.s.request('GET', `/api/v1/conversations/${conv.conversationId}`, { headers: r.owner.headers }), 200);
  return { conversationId: conv.conversationId, visitorId: detail.visitorId, attachmentId };
}

const httpTool = (r: Records) => ({
  name: unique('lookup_'), description: 'Looks something up.', method: 'GET', url: `${r.receiver.origin}/lookup?q={{args.q}}`,
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
});

async function textSource(r: Records): Promise<string> {
  const id = must('add text source', await r.s.request('POST', '/api/v1/knowledge', {
    body: { kind: 'text', name: unique('Hours '), text: 'The shop is open Monday to Saturday from 9:00 to 17:30.' }, headers: r.owner.headers,
  }), 201).id;
  await ingestionIdle(r.s.app, id);
  return id;
}

/** Runs a setup call as the owner and returns the answer body (fresh records for calls that use one up). */
const asOwner = async (r: Records, what: string, method: string, path: string, body: unknown, status: number) =>
  must(what, await r.s.request(method, path, { body, headers: r.owner.headers }), status);

async function freshInvite(r: Records, role: Role = 'agent'): Promise<{ id: string; token: string }> {
  const b = await asOwner(r, 'invite', 'POST', '/api/v1/members/invite', { email: `${unique('invitee')}@example.com`, role }, 201);
  return { id: b.invite.id, token: String(b.link).split('/invite/')[1] };
}

/** A conversation `who` has taken over (for reply, typing and release). */
async function takenOver(r: Records, who: Caller): Promise<string> {
  const { conversationId } = await newConversation(r);
  must('takeover', await r.s.request('POST', `/api/v1/conversations/${conversationId}/takeover`, { body: {}, headers: who.headers }), 200);
  return conversationId;
}

/** Every spec operation and how to make a valid call of it. */
export function validCalls(r: Records): Record<string, MakeCall> {
  const ok = (path: string, status = 200, body?: unknown): ValidCall => ({ path, status, ...(body !== undefined ? { body } : {}) });
  const bot = `/api/v1/bots/${r.botId}`;
  const provider = `/api/v1/providers/${r.providerId}`;
  return {
    'GET /api/v1/setup': async () => ok('/api/v1/setup'),
    // The one operation that cannot answer 2xx here: setup runs once per server, and this one is set up.
    'POST /api/v1/setup': async () => ok('/api/v1/setup', 409, { email: 'second@example.com', password: DEFAULT_PASSWORD, name: 'Second', workspaceName: 'Second' }),
    'POST /api/v1/auth/login': async () => ok('/api/v1/auth/login', 200, { email: r.owner.email, password: DEFAULT_PASSWORD }),
    'POST /api/v1/auth/logout': async () => ok('/api/v1/auth/logout', 204, {}),
    'GET /api/v1/me': async () => ok('/api/v1/me'),
    // Setting the same password keeps every test session's password working.
    'POST /api/v1/me/password': async () => ok('/api/v1/me/password', 204, { currentPassword: DEFAULT_PASSWORD, newPassword: DEFAULT_PASSWORD }),
    'GET /api/v1/invites/{token}': async () => ok(`/api/v1/invites/${(await freshInvite(r)).token}`),
    'POST /api/v1/invites/{token}/accept': async () => ok(`/api/v1/invites/${(await freshInvite(r)).token}/accept`, 201, { name: 'New Person', password: DEFAULT_PASSWORD }),

    'GET /api/v1/providers/catalog': async () => ok('/api/v1/providers/catalog'),
    'GET /api/v1/providers': async () => ok('/api/v1/providers'),
    'POST /api/v1/providers': async () => ok('/api/v1/providers', 201, { kind: 'openai', name: unique('Fake '), apiKey: r.fake.apiKey, baseUrl: r.fake.baseUrl }),
    'PATCH /api/v1/providers/{id}': async () => ok(provider, 200, { name: unique('Renamed ') }),
    'DELETE /api/v1/providers/{id}': async () => {
      const id = (await asOwner(r, 'connect', 'POST', '/api/v1/providers', { kind: 'openai', name: unique('Spare '), apiKey: r.fake.apiKey, baseUrl: r.fake.baseUrl }, 201)).id;
      return ok(`/api/v1/providers/${id}`, 204);
    },
    'POST /api/v1/providers/{id}/test': async () => ok(`${provider}/test`, 200, {}),
    'GET /api/v1/providers/{id}/models': async () => ok(`${provider}/models`),
    'GET /api/v1/providers/{id}/voices': async () => ok(`${provider}/voices`),
    'GET /api/v1/providers/{id}/voices/{voiceId}/preview': async () => {
      const voices = await asOwner(r, 'voices', 'GET', `${provider}/voices`, undefined, 200);
      return ok(`${provider}/voices/${voices.items[0].id}/preview`);
    },

    'GET /api/v1/bots/templates': async () => ok('/api/v1/bots/templates'),
    'GET /api/v1/bots': async () => ok('/api/v1/bots'),
    'POST /api/v1/bots': async () => ok('/api/v1/bots', 201, { name: unique('Bot ') }),
    'GET /api/v1/bots/{id}': async () => ok(bot),
    'PATCH /api/v1/bots/{id}': async () => {
      const { revision } = await asOwner(r, 'read bot', 'GET', bot, undefined, 200);
      return ok(bot, 200, { revision, name: unique('Helper ') });
    },
    'DELETE /api/v1/bots/{id}': async () => ok(`/api/v1/bots/${(await asOwner(r, 'bot', 'POST', '/api/v1/bots', { name: unique('Spare ') }, 201)).id}`, 204),
    'POST /api/v1/bots/{id}/duplicate': async () => ok(`${bot}/duplicate`, 201, {}),
    // A publish needs a draft that differs from the published version (an identical one answers 409).
    'POST /api/v1/bots/{id}/publish': async () => {
      const { revision } = await asOwner(r, 'read bot', 'GET', bot, undefined, 200);
      await asOwner(r, 'edit draft', 'PATCH', bot, { revision, patch: { identity: { agentName: unique('Agent ') } } }, 200);
      return ok(`${bot}/publish`, 200, {});
    },
    'GET /api/v1/bots/{id}/health': async () => ok(`${bot}/health`),
    'GET /api/v1/bots/{id}/versions': async () => ok(`${bot}/versions`),
    'POST /api/v1/bots/{id}/versions/{version}/restore': async () => ok(`${bot}/versions/1/restore`, 200, {}),
    'POST /api/v1/bots/{id}/status': async () => ok(`${bot}/status`, 200, { status: 'running' }),
    'POST /api/v1/bots/{id}/identity-secret': async () => ok(`${bot}/identity-secret`, 200, {}),
    'POST /api/v1/bots/{id}/preview': async () => ok(`${bot}/preview`, 200, {}),
    'GET /api/v1/bots/{id}/embed': async () => ok(`${bot}/embed`),

    'GET /api/v1/faces': async () => ok('/api/v1/faces'),
    'POST /api/v1/faces': async () => ok('/api/v1/faces', 201, { name: unique('Face '), image: (await image()).toString('base64'), landmarks: LANDMARKS }),
    'DELETE /api/v1/faces/{id}': async () => {
      const face = await asOwner(r, 'face', 'POST', '/api/v1/faces', { name: unique('Spare '), image: (await image()).toString('base64'), landmarks: LANDMARKS }, 201);
      return ok(`/api/v1/faces/${face.id}`, 204);
    },

    'GET /api/v1/conversations': async () => ok('/api/v1/conversations'),
    'GET /api/v1/conversations/{id}': async () => ok(`/api/v1/conversations/${r.conversationId}`),
    'GET /api/v1/conversations/{id}/export': async () => ok(`/api/v1/conversations/${r.conversationId}/export?format=md`),
    'POST /api/v1/conversations/{id}/tags': async () => ok(`/api/v1/conversations/${r.conversationId}/tags`, 200, { tags: ['vip'] }),
    'POST /api/v1/conversations/{id}/close': async () => ok(`/api/v1/conversations/${(await newConversation(r)).conversationId}/close`, 200, {}),
    'DELETE /api/v1/conversations/{id}': async () => ok(`/api/v1/conversations/${(await newConversation(r)).conversationId}`, 204),
    'GET /api/v1/attachments/{id}': async () => ok(`/api/v1/attachments/${r.attachmentId}`),
    'POST /api/v1/conversations/{id}/takeover': async () => ok(`/api/v1/conversations/${(await newConversation(r)).conversationId}/takeover`, 200, {}),
    'POST /api/v1/conversations/{id}/messages': async (who) => ok(`/api/v1/conversations/${await takenOver(r, who)}/messages`, 201, { text: 'A person here.' }),
    'POST /api/v1/conversations/{id}/typing': async (who) => ok(`/api/v1/conversations/${await takenOver(r, who)}/typing`, 204, { active: true }),
    'POST /api/v1/conversations/{id}/release': async (who) => ok(`/api/v1/conversations/${await takenOver(r, who)}/release`, 200, {}),

    'GET /api/v1/leads': async () => ok('/api/v1/leads'),
    'GET /api/v1/leads.csv': async () => ok('/api/v1/leads.csv'),
    'POST /api/v1/leads': async () => ok('/api/v1/leads', 201, { botId: r.botId, fields: { name: 'Lee Lead', email: `${unique('lead')}@example.com` } }),
    'PATCH /api/v1/leads/{id}': async () => ok(`/api/v1/leads/${r.leadId}`, 200, { status: 'contacted' }),
    'DELETE /api/v1/leads/{id}': async () => {
      const lead = await asOwner(r, 'lead', 'POST', '/api/v1/leads', { botId: r.botId, fields: { name: 'Sam Spare', email: `${unique('spare')}@example.com` } }, 201);
      return ok(`/api/v1/leads/${lead.id}`, 204);
    },

    'GET /api/v1/tools/http': async () => ok('/api/v1/tools/http'),
    'POST /api/v1/tools/http': async () => ok('/api/v1/tools/http', 201, httpTool(r)),
    'PATCH /api/v1/tools/http/{id}': async () => ok(`/api/v1/tools/http/${r.httpToolId}`, 200, { description: unique('Looks up, version ') }),
    'DELETE /api/v1/tools/http/{id}': async () => ok(`/api/v1/tools/http/${(await asOwner(r, 'tool', 'POST', '/api/v1/tools/http', httpTool(r), 201)).id}`, 204),
    'POST /api/v1/tools/http/{id}/test': async () => ok(`/api/v1/tools/http/${r.httpToolId}/test`, 200, { arguments: { q: 'x' } }),
    'GET /api/v1/tools/mcp': async () => ok('/api/v1/tools/mcp'),
    'POST /api/v1/tools/mcp': async () => ok('/api/v1/tools/mcp', 201, { name: unique('Shop '), url: r.mcp.url }),
    'PATCH /api/v1/tools/mcp/{id}': async () => ok(`/api/v1/tools/mcp/${r.mcpId}`, 200, { name: unique('Shop ') }),
    'POST /api/v1/tools/mcp/{id}/refresh': async () => ok(`/api/v1/tools/mcp/${r.mcpId}/refresh`, 200, {}),
    'POST /api/v1/tools/mcp/{id}/test': async () => ok(`/api/v1/tools/mcp/${r.mcpId}/test`, 200, { tool: 'echo', arguments: { text: 'hi' } }),
    'DELETE /api/v1/tools/mcp/{id}': async () => ok(`/api/v1/tools/mcp/${(await asOwner(r, 'mcp', 'POST', '/api/v1/tools/mcp', { name: unique('Spare '), url: r.mcp.url }, 201)).id}`, 204),
    'GET /api/v1/secrets': async () => ok('/api/v1/secrets'),
    'PUT /api/v1/secrets/{name}': async () => ok(`/api/v1/secrets/${unique('KEY_')}`, 201, { value: 'secret-value' }),
    'DELETE /api/v1/secrets/{id}': async () => {
      const name = unique('SPARE_');
      await asOwner(r, 'secret', 'PUT', `/api/v1/secrets/${name}`, { value: 'v' }, 201);
      return ok(`/api/v1/secrets/${name}`, 204);
    },

    'GET /api/v1/knowledge': async () => ok('/api/v1/knowledge'),
    'POST /api/v1/knowledge': async () => ok('/api/v1/knowledge', 201, { kind: 'text', name: unique('Notes '), text: 'Parking is behind the shop.' }),
    'POST /api/v1/knowledge/files': async () => ({ path: `/api/v1/knowledge/files?filename=${unique('notes')}.md`, status: 201, raw: { bytes: '# Notes\n\nGift cards never expire.', contentType: 'text/markdown' } }),
    'PATCH /api/v1/knowledge/{id}': async () => ok(`/api/v1/knowledge/${r.sourceId}`, 200, { name: unique('Hours ') }),
    'POST /api/v1/knowledge/{id}/reindex': async () => ok(`/api/v1/knowledge/${await textSource(r)}/reindex`, 202, {}),
    'DELETE /api/v1/knowledge/{id}': async () => ok(`/api/v1/knowledge/${await textSource(r)}`, 204),
    'GET /api/v1/knowledge/{id}/documents': async () => ok(`/api/v1/knowledge/${r.sourceId}/documents`),
    'POST /api/v1/knowledge/search': async () => ok('/api/v1/knowledge/search', 200, { query: 'when is the shop open', sourceIds: [r.sourceId] }),
    'GET /api/v1/knowledge/gaps': async () => ok('/api/v1/knowledge/gaps'),

    'GET /api/v1/analytics/summary': async () => ok('/api/v1/analytics/summary'),
    'GET /api/v1/analytics/timeseries': async () => ok('/api/v1/analytics/timeseries'),
    'GET /api/v1/analytics/tools': async () => ok('/api/v1/analytics/tools'),
    'GET /api/v1/analytics/usage': async () => ok('/api/v1/analytics/usage'),

    'GET /api/v1/webhooks': async () => ok('/api/v1/webhooks'),
    'POST /api/v1/webhooks': async () => ok('/api/v1/webhooks', 201, { url: r.receiver.url, events: ['lead.captured'] }),
    'PATCH /api/v1/webhooks/{id}': async () => ok(`/api/v1/webhooks/${r.webhookId}`, 200, { active: true }),
    'POST /api/v1/webhooks/{id}/secret': async () => ok(`/api/v1/webhooks/${r.webhookId}/secret`, 200, {}),
    'POST /api/v1/webhooks/{id}/test': async () => ok(`/api/v1/webhooks/${r.webhookId}/test`, 202, {}),
    'GET /api/v1/webhooks/{id}/deliveries': async () => ok(`/api/v1/webhooks/${r.webhookId}/deliveries`),
    'POST /api/v1/webhooks/deliveries/{id}/redeliver': async () => ok(`/api/v1/webhooks/deliveries/${r.deliveryId}/redeliver`, 202, {}),
    'DELETE /api/v1/webhooks/{id}': async () => {
      const hook = await asOwner(r, 'webhook', 'POST', '/api/v1/webhooks', { url: r.receiver.url, events: ['lead.captured'] }, 201);
      return ok(`/api/v1/webhooks/${hook.id}`, 204);
    },

    'GET /api/v1/tokens': async () => ok('/api/v1/tokens'),
    'POST /api/v1/tokens': async () => ok('/api/v1/tokens', 201, { name: unique('token '), scopes: ['bots:read'] }),
    'DELETE /api/v1/tokens/{id}': async () => {
      const t = await asOwner(r, 'token', 'POST', '/api/v1/tokens', { name: unique('spare '), scopes: ['bots:read'] }, 201);
      return ok(`/api/v1/tokens/${t.token.id}`, 204);
    },
    'GET /api/v1/members': async () => ok('/api/v1/members'),
    'POST /api/v1/members/invite': async () => ok('/api/v1/members/invite', 201, { email: `${unique('new')}@example.com`, role: 'agent' }),
    'DELETE /api/v1/members/invites/{id}': async () => ok(`/api/v1/members/invites/${(await freshInvite(r)).id}`, 204),
    'PATCH /api/v1/members/{id}': async () => ok(`/api/v1/members/${(await addMember(r.s, r.owner, 'agent')).userId}`, 200, { role: 'viewer' }),
    'DELETE /api/v1/members/{id}': async () => ok(`/api/v1/members/${(await addMember(r.s, r.owner, 'agent')).userId}`, 204),
    'PUT /api/v1/me/presence': async () => ok('/api/v1/me/presence', 200, { presence: 'online' }),
    'GET /api/v1/settings': async () => ok('/api/v1/settings'),
    'PATCH /api/v1/settings': async () => ok('/api/v1/settings', 200, { timezone: 'UTC' }),
    'DELETE /api/v1/workspace': async () => ok('/api/v1/workspace', 204),
    'GET /api/v1/audit': async () => ok('/api/v1/audit'),

    'GET /api/v1/visitors': async () => ok('/api/v1/visitors?email=visitor@example.com'),
    'GET /api/v1/visitors/{id}/export': async () => ok(`/api/v1/visitors/${r.visitorId}/export`),
    'DELETE /api/v1/visitors/{id}': async () => ok(`/api/v1/visitors/${(await newConversation(r)).visitorId}`, 200),
  };
}
