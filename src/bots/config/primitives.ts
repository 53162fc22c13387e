/**
 * Small builders for the bot config schema, so every section reads like the spec's tables:
 * type, range (inclusive), default. Checks are zod checks or refinements (no transforms), so the
 * schema still converts to JSON Schema for OpenAPI.
 */
import { z } from 'zod';
import { templateProblems, type TemplateVariable } from './template-vars.js';

/** A section object: unknown keys rejected; omitted (or {}) parses to every default of its fields. */
export function section<T extends z.core.$ZodLooseShape>(shape: T) {
  const object = z.strictObject(shape);
  return object.prefault({} as z.input<typeof object>);
}

/** Free text up to `max` characters. */
export const text = (max: number, def = '') => z.string().max(max).default(def);

/** A required, non-empty string of at most `max` characters (ids, labels). */
export const name = (max: number) => z.string().min(1).max(max);

export const int = (min: number, max: number, def: number) => z.int().min(min).max(max).default(def);

export const num = (min: number, max: number, def: number) => z.number().min(min).max(max).default(def);

export const bool = (def: boolean) => z.boolean().default(def);

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, def: T[number]) => z.enum(values).default(def);

/** A provider connection id, or null for none / not chosen yet. */
export const connectionId = () => z.string().max(64).nullable().default(null);

/** A model or voice id; empty means the provider's default. */
export const modelId = () => text(120);

/** Array of strings with a count limit and a per-item length limit. */
export const stringList = (maxItems: number, maxLength: number) => z.array(z.string().max(maxLength)).max(maxItems).default([]);

/** Text that may contain template variables; only those the spec names for this field are accepted. */
export function templated(max: number, accepts: readonly TemplateVariable[], def = '') {
  return z
    .string()
    .max(max)
    .superRefine((value, ctx) => {
      for (const message of templateProblems(value, accepts)) ctx.addIssue({ code: 'custom', message });
    })
    .meta({ description: `accepts template variables ${accepts.map((v) => `{{${v}}}`).join(', ')}` })
    .default(def);
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone name the runtime knows (UTC, Europe/Berlin, ...). */
export const timeZone = (def: string) =>
  z.string().max(64).refine(isTimeZone, { message: 'must be an IANA time zone name such as Europe/Berlin' }).default(def);

function isLanguageTag(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

/** A BCP 47 language tag (en, en-GB, pt-BR); `optional` lets the empty string through. */
export const languageTag = (def: string, optional: boolean) =>
  z
    .string()
    .max(35)
    .refine((v) => (optional && v === '') || isLanguageTag(v), { message: 'must be a language tag such as en or en-GB' })
    .default(def);

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Empty, or an http(s) URL (a javascript: link in the widget would run script). */
export const webUrlOrEmpty = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => v === '' || isWebUrl(v), { message: 'must be an http or https URL, or empty' })
    .default('');

/** HH:MM on a 24-hour clock, 00:00 to 23:59. */
export const clockTime = () => z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'must be a time HH:MM from 00:00 to 23:59' });

/** YYYY-MM-DD that is a real calendar date. */
export const calendarDate = () => z.iso.date({ message: 'must be a date YYYY-MM-DD' });

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = `(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*`;
const IPV6 = '\\[[0-9a-f:.]+\\]';
/** *, a full origin, https://*.example.com, http://localhost:*, or a bare host (bot-config.md, security.allowedOrigins). */
export const ORIGIN_PATTERN = new RegExp(`^(?:\\*|(?:https?://)?(?:${HOST}|${IPV6})(?::(?:\\d{1,5}|\\*))?)$`, 'i');
