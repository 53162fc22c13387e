/** Bots area (service-api.md, Bots; bot-config.md): templates, CRUD, draft edits, publish, versions, secrets. */
import { z } from 'zod';
import { botHealth } from '../../bots/health.js';
import { actorOf } from '../../auth/principal.js';
import { BotConfigSchema } from '../../bots/config/index.js';
import { embedInfo } from '../../bots/embed.js';
import { createPreviewToken } from '../../bots/preview-token.js';
import { publishBot } from '../../bots/publish.js';
import type { HostedAgentPort } from '../../bots/hosted-agent-port.js';
import { getBot } from '../../bots/records.js';
import {
  botView, createBot, deleteBot, duplicateBot, editDraft, listBots, listVersions, newIdentitySecret,
  restoreVersion, setStatus, versionSummary,
} from '../../bots/service.js';
import { BOT_TEMPLATES } from '../../bots/templates.js';
import { badRequest } from '../../kernel/errors.js';
import { documentedAs, reply, route, type ApiModule } from '../define.js';
import { listOf, pageOf } from './list-schemas.js';

const Name = z.string().trim().min(1).max(80);
const Revision = z.number().int().min(0);
const ConfigObject = z.record(z.string(), z.unknown()).meta({ description: 'bot configuration (see the Bot configuration schema)' });
/** Checked by the bots service after merging (so errors name the config's own field paths); documented as BotConfig. */
const WholeConfig = documentedAs(z.record(z.string(), z.unknown()), BotConfigSchema,
  'a whole bot configuration that replaces the draft; missing fields take their defaults');
const ConfigPatch = documentedAs(z.record(z.string(), z.unknown()), BotConfigSchema,
  'a deep-partial bot configuration merged into the draft: send only the fields to change; objects merge, arrays and null replace; the merged result must be a valid BotConfigInput');

export const CreateBody = z.strictObject({ name: Name, templateId: z.string().min(1).max(64).optional() });
/** One of patch (deep merge; arrays and null replace) or config (whole replacement), with the revision read. */
export const PatchBody = z.strictObject({ revision: Revision, patch: ConfigPatch.optional(), config: WholeConfig.optional(), name: Name.optional() })
  .refine((b) => !(b.patch !== undefined && b.config !== undefined), { message: 'send either patch or config, not both', path: ['config'] })
  .refine((b) => b.patch !== undefined || b.config !== undefined || b.name !== undefined, { message: 'send patch (a partial config) or config (a whole one)', path: ['patch'] });
const RevisionBody = z.strictObject({ revision: Revision.optional() });
const DuplicateBody = z.strictObject({ name: Name.optional() });
const StatusBody = z.strictObject({ status: z.enum(['running', 'paused']) });
const ListQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(200).optional(), before: z.string().min(1).max(100).optional() });

const Summary = z.object({
  id: z.string(), name: z.string(), status: z.enum(['running', 'paused']), revision: z.number(),
  publishedVersion: z.number().nullable(), publishedAt: z.number().nullable(), createdAt: z.number(), updatedAt: z.number(),
});
const VersionSummary = z.object({ version: z.number(), publishedAt: z.number(), publishedBy: z.object({ id: z.string(), name: z.string() }).nullable() });
export const BotResponse = Summary.extend({
  draft: BotConfigSchema,
  published: z.object({ version: z.number(), config: BotConfigSchema, publishedAt: z.number() }).nullable(),
  versions: z.array(VersionSummary),
  hasIdentitySecret: z.boolean(),
});
const ListResponse = pageOf(Summary);
const TemplatesResponse = listOf(z.object({ id: z.string(), name: z.string(), description: z.string(), config: ConfigObject }));
const VersionsResponse = listOf(VersionSummary.extend({ config: BotConfigSchema }));

const target = (id: string) => ({ type: 'bot', id });
const JSON_TYPE = Object.freeze({ 'Content-Type': 'application/json; charset=utf-8' });
const jsonBytes = (body: Buffer) => reply({ status: 200, headers: JSON_TYPE, body });

function versionParam(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw badRequest('version: must be a whole number from 1');
  return n;
}

/** The last voice failure visitors met, with the operator's details (src/bots/health.ts). */
const HealthResponse = z.object({
  botId: z.string(),
  voice: z.object({
    lastFailure: z.object({ at: z.number(), stage: z.string(), message: z.string(), conversationId: z.string().nullable() }).nullable(),
    failuresSinceOk: z.number(), lastOkAt: z.number().nullable(),
  }),
});

/** The routes are handed the hosted-agent port that publish and delete keep in step (src/voice/hosted-agent.ts). */
export const botsModule = (hostedAgents: HostedAgentPort): ApiModule => ({
  name: 'bots',
  routes: [
    route({ op: 'GET /api/v1/bots/templates', response: TemplatesResponse, handler: () => ({ items: BOT_TEMPLATES }) }),
    route({ op: 'GET /api/v1/bots', query: ListQuery, response: ListResponse,
      // The answer's bytes come kept (list-cache.ts): a warm list is answered without I/O, so it pipelines.
      handler: ({ app, workspaceId, query }) => {
        const body = listBots(app, workspaceId, query);
        return Buffer.isBuffer(body) ? jsonBytes(body) : body.then(jsonBytes);
      } }),
    route({ op: 'POST /api/v1/bots', body: CreateBody, response: BotResponse, status: 201,
      handler: async (ctx) => {
        const bot = await createBot(ctx.app, ctx.workspaceId, ctx.body);
        await ctx.audit('bot.create', target(bot._id), { name: bot.name, templateId: ctx.body.templateId ?? null });
        return botView(ctx.app, bot);
      } }),
    route({ op: 'GET /api/v1/bots/{id}', response: BotResponse,
      handler: async ({ app, workspaceId, params }) => botView(app, await getBot(app, workspaceId, params.id)) }),
    route({ op: 'PATCH /api/v1/bots/{id}', body: PatchBody, response: BotResponse,
      handler: async (ctx) => {
        const { patch, config } = ctx.body;
        const bot = await editDraft(ctx.app, ctx.workspaceId, ctx.params.id, ctx.body);
        await ctx.audit('bot.update', target(bot._id), { revision: bot.revision, kind: config !== undefined ? 'config' : patch !== undefined ? 'patch' : 'name' });
        return botView(ctx.app, bot);
      } }),
    route({ op: 'DELETE /api/v1/bots/{id}',
      handler: async (ctx) => {
        await deleteBot(ctx.app, hostedAgents, ctx.workspaceId, ctx.params.id);
        await ctx.audit('bot.delete', target(ctx.params.id));
      } }),
    route({ op: 'POST /api/v1/bots/{id}/duplicate', body: DuplicateBody, response: BotResponse, status: 201,
      handler: async (ctx) => {
        const copy = await duplicateBot(ctx.app, ctx.workspaceId, ctx.params.id, ctx.body.name);
        await ctx.audit('bot.duplicate', target(copy._id), { from: ctx.params.id });
        return botView(ctx.app, copy);
      } }),
    route({ op: 'POST /api/v1/bots/{id}/publish', body: RevisionBody, response: BotResponse,
      handler: async (ctx) => {
        const by = ctx.principal ? actorOf(ctx.principal) : null;
        const bot = await publishBot(ctx.app, hostedAgents, ctx.workspaceId, ctx.params.id, by && { id: by.id, name: by.name }, ctx.body.revision);
        await ctx.audit('bot.publish', target(bot._id), { version: bot.published?.version });
        return botView(ctx.app, bot);
      } }),
    route({ op: 'GET /api/v1/bots/{id}/health', response: HealthResponse,
      handler: async ({ app, workspaceId, params }) => {
        await getBot(app, workspaceId, params.id);
        return botHealth(app, workspaceId, params.id);
      } }),
    route({ op: 'GET /api/v1/bots/{id}/versions', response: VersionsResponse,
      handler: async ({ app, workspaceId, params }) => {
        await getBot(app, workspaceId, params.id);
        const versions = await listVersions(app, workspaceId, params.id);
        return { items: versions.map((v) => ({ ...versionSummary(v), config: v.config })) };
      } }),
    route({ op: 'POST /api/v1/bots/{id}/versions/{version}/restore', body: RevisionBody, response: BotResponse,
      handler: async (ctx) => {
        const version = versionParam(ctx.params.version);
        const bot = await restoreVersion(ctx.app, ctx.workspaceId, ctx.params.id, version, ctx.body.revision);
        await ctx.audit('bot.restore', target(bot._id), { version });
        return botView(ctx.app, bot);
      } }),
    route({ op: 'POST /api/v1/bots/{id}/status', body: StatusBody, response: BotResponse,
      handler: async (ctx) => {
        const bot = await setStatus(ctx.app, ctx.workspaceId, ctx.params.id, ctx.body.status);
        await ctx.audit('bot.status', target(bot._id), { status: bot.status });
        return botView(ctx.app, bot);
      } }),
    route({ op: 'POST /api/v1/bots/{id}/identity-secret', response: z.object({ botId: z.string(), secret: z.string() }),
      handler: async (ctx) => {
        const secret = await newIdentitySecret(ctx.app, ctx.workspaceId, ctx.params.id);
        await ctx.audit('bot.identity_secret', target(ctx.params.id));
        return { botId: ctx.params.id, secret };
      } }),
    route({ op: 'POST /api/v1/bots/{id}/preview', response: z.object({ botId: z.string(), token: z.string(), expiresAt: z.number() }),
      handler: async ({ app, workspaceId, params }) => {
        const bot = await getBot(app, workspaceId, params.id);
        return { botId: bot._id, ...createPreviewToken(app, workspaceId, bot._id) };
      } }),
    route({ op: 'GET /api/v1/bots/{id}/embed',
      response: z.object({ botId: z.string(), scriptUrl: z.string(), layout: z.string(), published: z.boolean(), snippets: z.record(z.string(), z.string()) }),
      handler: async ({ app, workspaceId, params }) => {
        const bot = await getBot(app, workspaceId, params.id);
        return embedInfo(app.config.publicUrl, bot._id, bot.published?.config ?? bot.draft, bot.published !== null);
      } }),
  ],
});
