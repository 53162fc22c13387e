/**
 * Workspace settings (the spec says only "has settings"; the fields are our choice, see docs/access.md).
 * Kept small: what more than one area reads (name, language, time zone, retention, who may be invited).
 */
import { z } from 'zod';
import { perApp, type AppContext } from '../app/context.js';
import { notFound } from '../kernel/errors.js';

function isTimeZone(tz: string): boolean {
  try { new Intl.DateTimeFormat('en', { timeZone: tz }); return true; } catch { return false; }
}

const domain = z.string().trim().toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name such as example.com');

export const SettingsSchema = z.object({
  /** Shown in the admin panel and on invitation pages. */
  name: z.string().trim().min(1).max(100),
  /** Language tag new bots start with (their identity.language, up to 35 characters). */
  defaultLanguage: z.string().max(35).regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en or pt-BR'),
  /** IANA time zone of analytics days, and the zone new bots start with (identity and opening hours). */
  timezone: z.string().max(64).refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC'),
  /** Conversations whose last message is older than this many days are deleted (src/retention/); null keeps them. */
  conversationRetentionDays: z.number().int().min(1).max(3650).nullable(),
  /** When not empty, invitations may only go to e-mail addresses in these domains. */
  allowedEmailDomains: z.array(domain).max(50),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** PATCH body: any subset of the fields; unknown fields are refused so a typo is not silently ignored. */
export const SettingsPatchSchema = SettingsSchema.partial().strict();

export const defaultSettings = (name: string): Settings => ({
  name, defaultLanguage: 'en', timezone: 'UTC', conversationRetentionDays: null, allowedEmailDomains: [],
});

/** The workspace's settings (defaults filled in for fields added after the workspace was made). */
export async function getSettings(app: AppContext, workspaceId: string): Promise<Settings> {
  const ws = await app.records.workspaces.findById(workspaceId, workspaceId);
  if (!ws) throw notFound('workspace');
  return { ...defaultSettings(ws.settings.name), ...ws.settings };
}

export async function updateSettings(app: AppContext, workspaceId: string, patch: Partial<Settings>): Promise<Settings> {
  const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined).map(([k, v]) => [`settings.${k}`, v]));
  if (Object.keys(set).length) await app.records.workspaces.updateOne({ workspaceId, _id: workspaceId }, { $set: set });
  zones(app).delete(workspaceId);
  return getSettings(app, workspaceId);
}

/**
 * How long a workspace's time zone is reused without reading the settings again. Analytics counting asks for it
 * on every batch; a change made here applies at once, one made through another process within this time.
 */
export const ZONE_CACHE_MS = 60_000;
const zones = perApp(() => new Map<string, { timezone: string; readAt: number }>());

/** The workspace's time zone; UTC for a workspace that is gone. */
export async function workspaceTimezone(app: AppContext, workspaceId: string): Promise<string> {
  const now = app.clock.now();
  const cached = zones(app).get(workspaceId);
  if (cached && now - cached.readAt < ZONE_CACHE_MS) return cached.timezone;
  const ws = await app.records.workspaces.findById(workspaceId, workspaceId);
  const timezone = ws?.settings.timezone ?? 'UTC';
  zones(app).set(workspaceId, { timezone, readAt: now });
  return timezone;
}
