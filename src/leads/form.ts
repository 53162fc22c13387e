/**
 * The lead form as the widget is asked to show it, and validation of submitted values against
 * behavior.leadCapture.fields (the same rules for the capture_lead tool, the form and POST /leads).
 */
import { z } from 'zod';
import type { LeadField, LeadFormFrame, LeadFormReason } from '../../protocol/widget.js';
export type { LeadField, LeadFormFrame, LeadFormReason };

export function leadFormFrame(conversationId: string | null, reason: LeadFormReason, fields: LeadField[]): LeadFormFrame {
  return { t: 'lead_form', conversationId, reason, fields: fields.map((f) => ({ key: f.key, label: f.label, type: f.type, required: f.required, ...(f.options ? { options: f.options } : {}) })) };
}

export const MAX_VALUE_CHARS = 2000;
const EMAIL = z.email();
// Digits with the usual separators and an optional leading +: at least 5 digits, at most 20.
const TEL = /^\+?[0-9 ()./-]{5,30}$/;

/**
 * Checks values against the fields: known keys only, required ones present, types respected. Values are
 * trimmed strings; empty optional values are left out. Returns the clean map or the first problem, naming the key.
 */
export function validateLeadFields(fields: LeadField[], input: Record<string, unknown>): { ok: true; values: Record<string, string> } | { ok: false; message: string } {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  for (const key of Object.keys(input)) if (!byKey.has(key)) return { ok: false, message: `fields.${key}: not a field of this bot's lead form (${[...byKey.keys()].join(', ') || 'none'})` };
  const values: Record<string, string> = {};
  for (const f of fields) {
    const raw = input[f.key];
    if (raw !== undefined && raw !== null && typeof raw !== 'string' && typeof raw !== 'number') return { ok: false, message: `fields.${f.key}: must be text` };
    const v = raw === undefined || raw === null ? '' : String(raw).trim();
    if (!v) {
      if (f.required) return { ok: false, message: `fields.${f.key}: ${f.label} is required` };
      continue;
    }
    if (v.length > MAX_VALUE_CHARS) return { ok: false, message: `fields.${f.key}: longer than ${MAX_VALUE_CHARS} characters` };
    if (f.type === 'email' && !EMAIL.safeParse(v).success) return { ok: false, message: `fields.${f.key}: not a valid e-mail address` };
    if (f.type === 'tel' && (!TEL.test(v) || v.replace(/\D/g, '').length < 5 || v.replace(/\D/g, '').length > 20)) return { ok: false, message: `fields.${f.key}: not a valid phone number` };
    if (f.type === 'select' && f.options?.length && !f.options.includes(v)) return { ok: false, message: `fields.${f.key}: choose one of ${f.options.join(', ')}` };
    if (f.type !== 'textarea' && /[\r\n]/.test(v)) return { ok: false, message: `fields.${f.key}: must be one line` };
    values[f.key] = v;
  }
  return { ok: true, values };
}
