/**
 * Templates of HTTP tools: {{args.path}} takes a value from the call's arguments, {{secrets.NAME}} a
 * workspace secret. How a value is written depends on where it lands: URL-encoded in a URL, JSON in a
 * JSON body, as plain text in a header (line breaks refused, so no header can be injected).
 */

const PLACEHOLDER = /\{\{\s*([a-zA-Z]+)\.([a-zA-Z0-9_.-]+)\s*\}\}/g;
const ANY_BRACES = /\{\{([^}]*)\}\}/g;

export type Encoding = 'url' | 'json' | 'text';

export interface TemplateRefs {
  args: string[];
  secrets: string[];
}

/** Names the template uses; a placeholder other than args.* or secrets.* is a problem. */
export function templateRefs(template: string): { refs: TemplateRefs; problem: string | null } {
  const refs: TemplateRefs = { args: [], secrets: [] };
  for (const m of template.matchAll(ANY_BRACES)) {
    const inner = m[1].trim();
    const ok = /^(args|secrets)\.[a-zA-Z0-9_.-]+$/.exec(inner);
    if (!ok) return { refs, problem: `unknown placeholder {{${inner}}}: use {{args.name}} or {{secrets.NAME}}` };
  }
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (m[1] === 'args') refs.args.push(m[2]);
    else refs.secrets.push(m[2]);
  }
  return { refs, problem: null };
}

function argValue(args: Record<string, unknown>, path: string): unknown {
  let v: unknown = args;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** Fills a template. Secrets must all be present in `secrets` (the caller resolved them). */
export function renderTemplate(template: string, args: Record<string, unknown>, secrets: Map<string, string>, encoding: Encoding): string {
  return template.replace(PLACEHOLDER, (_all, ns: string, path: string) => {
    let value: unknown;
    if (ns === 'secrets') {
      if (!secrets.has(path)) throw new TemplateError(`secret ${path} is not set`);
      value = secrets.get(path);
    } else if (ns === 'args') {
      value = argValue(args, path);
    } else {
      throw new TemplateError(`unknown placeholder {{${ns}.${path}}}`);
    }
    switch (encoding) {
      case 'url':
        return encodeURIComponent(asText(value));
      case 'json':
        return JSON.stringify(value === undefined ? null : value);
      case 'text': {
        const text = asText(value);
        if (/[\r\n\0]/.test(text)) throw new TemplateError(`{{${ns}.${path}}} contains a line break, which a header cannot carry`);
        return text;
      }
    }
  });
}

/** The template with every placeholder filled by a harmless value: used to check a URL template's shape at save time. */
export const sampleOf = (template: string) => template.replace(PLACEHOLDER, 'x');
