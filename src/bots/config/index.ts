/** Bot configuration: schema, validation, PATCH merge and template variables (bot-config.md). */
export { BotConfigSchema, BOT_CONFIG_SCHEMA_VERSION, botConfigJsonSchema, type BotConfig, type BotConfigInput } from './schema.js';
export { parseBotConfig, findUnsafeInput, FORBIDDEN_KEYS } from './parse.js';
export { deepMergePatch, applyConfigPatch } from './merge.js';
export {
  TEMPLATE_VARIABLES,
  TEMPLATE_FIELDS,
  templateProblems,
  renderTemplate,
  renderField,
  contextFromIdentity,
  type TemplateVariable,
  type TemplatedField,
  type TemplateContext,
} from './template-vars.js';
