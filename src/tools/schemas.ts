/** Request bodies of the tools API (zod): shapes only; the services check templates, schemas and connections. */
import { z } from 'zod';

export const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const headerMap = z
  .record(z.string().regex(HEADER_NAME, 'header names are letters, digits and - (a token)'), z.string().max(8192))
  .refine((h) => Object.keys(h).length <= 30, 'at most 30 headers');

const jsonSchemaObject = z.record(z.string(), z.unknown());

export const HttpToolInput = z.strictObject({
  name: z.string().regex(TOOL_NAME, 'start with a letter; letters, digits, _ and -; at most 64 characters'),
  description: z.string().trim().min(1).max(1024),
  label: z.string().max(64).nullable().default(null),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  /** URL template: {{args.x}} (URL-encoded) and {{secrets.NAME}}. */
  url: z.string().min(1).max(2048),
  headers: headerMap.default(() => ({})),
  /** none: no body; args: the arguments as JSON; template: bodyTemplate filled in. Default: args for POST/PUT/PATCH, none otherwise. */
  bodyMode: z.enum(['none', 'args', 'template']).optional(),
  bodyTemplate: z.string().max(20_000).nullable().default(null),
  parameters: jsonSchemaObject.default(() => ({ type: 'object', properties: {} })),
  timeoutMs: z.number().int().min(1000).max(120_000).default(10_000),
});
export type HttpToolInput = z.infer<typeof HttpToolInput>;

export const HttpToolPatch = z.strictObject({
  name: HttpToolInput.shape.name.optional(),
  description: z.string().trim().min(1).max(1024).optional(),
  label: z.string().max(64).nullable().optional(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
  url: z.string().min(1).max(2048).optional(),
  headers: headerMap.optional(),
  bodyMode: z.enum(['none', 'args', 'template']).optional(),
  bodyTemplate: z.string().max(20_000).nullable().optional(),
  parameters: jsonSchemaObject.optional(),
  timeoutMs: z.number().int().min(1000).max(120_000).optional(),
});
export type HttpToolPatch = z.infer<typeof HttpToolPatch>;

export const ToolTestInput = z.strictObject({
  arguments: z.record(z.string(), z.unknown()).default(() => ({})),
});

export const McpServerInput = z.strictObject({
  name: z.string().trim().min(1).max(64),
  /** http: Streamable HTTP, falling back to the older HTTP+SSE transport; stdio: a program on this server. */
  transport: z.enum(['http', 'stdio']).default('http'),
  url: z.string().max(2048).nullable().default(null),
  headers: headerMap.default(() => ({})),
  command: z.string().min(1).max(1024).nullable().default(null),
  args: z.array(z.string().max(4096)).max(64).default(() => []),
  env: z.record(z.string().regex(ENV_NAME, 'environment names are letters, digits and _'), z.string().max(8192))
    .refine((e) => Object.keys(e).length <= 50, 'at most 50 variables')
    .default(() => ({})),
});
export type McpServerInput = z.infer<typeof McpServerInput>;

export const McpServerPatch = z.strictObject({
  name: z.string().trim().min(1).max(64).optional(),
  url: z.string().max(2048).nullable().optional(),
  headers: headerMap.optional(),
  keepHeaders: z.boolean().default(false),
  command: z.string().min(1).max(1024).nullable().optional(),
  args: z.array(z.string().max(4096)).max(64).optional(),
  env: McpServerInput.shape.env.unwrap().optional(),
  keepEnv: z.boolean().default(false),
});
export type McpServerPatch = z.infer<typeof McpServerPatch>;

export const McpTestInput = z.strictObject({
  tool: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()).default(() => ({})),
});

export const SecretInput = z.strictObject({
  value: z.string().min(1).max(8192),
});
