/**
 * The bot configuration document (bot-config.md) as one zod 4 schema. Every section and field has its
 * default, so `BotConfigSchema.parse({})` is a complete config; unknown keys are rejected at every level.
 */
import { z } from 'zod';
import { BrainSchema, FaceSchema, IdentitySchema, VisionSchema, VoiceSchema, WelcomeSchema } from './sections-agent.js';
import { BehaviorSchema, KnowledgeSchema, SecuritySchema, ToolsSchema } from './sections-operations.js';
import { AppearanceSchema, GreetingSchema, TextsSchema } from './sections-widget.js';

export const BOT_CONFIG_SCHEMA_VERSION = 1;

export const BotConfigSchema = z
  .strictObject({
    schemaVersion: z.literal(BOT_CONFIG_SCHEMA_VERSION).default(BOT_CONFIG_SCHEMA_VERSION),
    identity: IdentitySchema,
    welcome: WelcomeSchema,
    brain: BrainSchema,
    voice: VoiceSchema,
    vision: VisionSchema,
    face: FaceSchema,
    appearance: AppearanceSchema,
    texts: TextsSchema,
    greeting: GreetingSchema,
    behavior: BehaviorSchema,
    security: SecuritySchema,
    knowledge: KnowledgeSchema,
    tools: ToolsSchema,
  })
  .meta({ id: 'BotConfig', title: 'Bot configuration', description: 'The settings document of one bot (schemaVersion 1).' });

/** A complete, validated config with every default filled in. */
export type BotConfig = z.output<typeof BotConfigSchema>;

/** What may be sent: any part of a config; omitted settings take their defaults. */
export type BotConfigInput = z.input<typeof BotConfigSchema>;

/** JSON Schema (draft 2020-12) of what clients may send, for the OpenAPI description. */
export function botConfigJsonSchema(): Record<string, unknown> {
  // The schema is registered under the id BotConfig (so OpenAPI can reference it once); resolve that here.
  const out = z.toJSONSchema(BotConfigSchema, { io: 'input' }) as Record<string, unknown> & { $defs?: Record<string, Record<string, unknown>> };
  const ref = typeof out.$ref === 'string' ? out.$ref.replace('#/$defs/', '') : null;
  if (!ref || !out.$defs?.[ref]) return out;
  const { [ref]: root, ...rest } = out.$defs;
  return { $schema: out.$schema, ...root, ...(Object.keys(rest).length ? { $defs: rest } : {}) };
}
