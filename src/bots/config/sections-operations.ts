/** Sections about running the bot (bot-config.md): behavior, security, knowledge, tools. */
import { z } from 'zod';
import { bool, calendarDate, clockTime, int, name, num, oneOf, ORIGIN_PATTERN, section, timeZone } from './primitives.js';

export const LeadFieldSchema = z.strictObject({
  key: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, {
    message: 'must start with a lowercase letter, then up to 31 lowercase letters, digits or _',
  }),
  label: name(80),
  type: oneOf(['text', 'email', 'tel', 'textarea', 'select'], 'text'),
  required: bool(false),
  options: z.array(z.string().max(80)).max(20).optional(),
});

export const OpenPeriodSchema = z.strictObject({
  day: z.int().min(0).max(6),
  open: clockTime(),
  close: clockTime(),
});

const DEFAULT_LEAD_FIELDS = () => [
  { key: 'name', label: 'Name', type: 'text' as const, required: true },
  { key: 'email', label: 'Email', type: 'email' as const, required: true },
];

const DEFAULT_WEEKLY_HOURS = () => [1, 2, 3, 4, 5].map((day) => ({ day, open: '09:00', close: '17:00' }));

export const BehaviorSchema = section({
  leadCapture: section({
    enabled: bool(false),
    when: oneOf(['tool', 'start', 'before_handoff', 'offline'], 'tool'),
    fields: z
      .array(LeadFieldSchema)
      .max(12)
      // Keys name the values of a saved lead, so two fields may not share one.
      .superRefine((fields, ctx) => {
        const seen = new Set<string>();
        fields.forEach((field, i) => {
          if (seen.has(field.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `duplicate field key "${field.key}"` });
          seen.add(field.key);
        });
      })
      .default(DEFAULT_LEAD_FIELDS),
  }),
  handoff: section({
    enabled: bool(false),
    acceptTimeoutSec: int(15, 3600, 120),
    offlineAction: oneOf(['lead_form', 'message', 'none'], 'lead_form'),
  }),
  hours: section({
    enabled: bool(false),
    timezone: timeZone('UTC'),
    weekly: z.array(OpenPeriodSchema).max(21).default(DEFAULT_WEEKLY_HOURS),
    holidays: z.array(calendarDate()).max(100).default(() => []),
    scope: oneOf(['handoff', 'bot'], 'handoff'),
  }),
  feedback: section({
    thumbs: bool(true),
    csat: bool(true),
  }),
  persistence: section({
    resumeWindowHours: num(0, 720, 24),
    showHistory: bool(true),
  }),
  endAfterIdleMinutes: num(1, 1440, 30),
  citations: bool(true),
  newConversation: bool(true),
  transcriptDownload: bool(true),
  poweredBy: bool(true),
});

export const SecuritySchema = section({
  allowedOrigins: z
    .array(
      z
        .string()
        .max(300)
        .regex(ORIGIN_PATTERN, { message: 'must be *, an origin such as https://example.com, https://*.example.com, http://localhost:*, or a bare host' }),
    )
    .max(100)
    .default(() => []),
  identity: section({
    mode: oneOf(['off', 'optional', 'required'], 'off'),
  }),
  rateLimits: section({
    messagesPerMinute: int(1, 600, 12),
    conversationsPerIpPerHour: int(1, 10000, 30),
    uploadsPerHour: int(0, 1000, 30),
  }),
  maxMessageChars: int(100, 20000, 4000),
  maxTurnsPerConversation: int(1, 5000, 200),
  caps: section({
    dailyUsd: z.number().min(0).nullable().default(null),
    dailyVoiceMinutes: z.number().min(0).nullable().default(null),
    dailyMessages: z.int().min(0).nullable().default(null),
    concurrentVoiceSessions: int(0, 1000, 5),
  }),
});

export const KnowledgeSchema = section({
  sourceIds: z.array(name(64)).max(200).default(() => []),
  mode: oneOf(['auto', 'tool', 'both'], 'both'),
  topK: int(1, 20, 5),
});

/** '*' for every tool, or a list of tool names (MCP names are at most 128 characters). */
const toolAllowList = () => z.union([z.literal('*'), z.array(name(128)).max(500)], { message: "must be '*' or a list of tool names" });

export const ToolsSchema = section({
  builtins: section({
    search_knowledge: bool(true),
    capture_lead: bool(true),
    handoff_to_human: bool(true),
    end_conversation: bool(true),
    express: bool(true),
    look_at_camera: bool(true),
  }),
  http: z
    .array(z.strictObject({ toolId: name(64), enabled: bool(true) }))
    .max(100)
    .default(() => []),
  mcp: z
    .array(z.strictObject({ serverId: name(64), allow: toolAllowList().default('*'), confirmDestructive: bool(true) }))
    .max(50)
    .default(() => []),
  client: section({
    enabled: bool(false),
    allow: toolAllowList().default(() => []),
    timeoutMs: int(1000, 120000, 15000),
  }),
  toolTimeoutMs: int(1000, 120000, 15000),
  maxResultChars: int(500, 100000, 8000),
});
