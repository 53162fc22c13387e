/**
 * Ranges and defaults of every bot setting come from the server's own OpenAPI document (components.schemas.BotConfigInput,
 * generated from the schema that validates the config), so the panel never disagrees with the API about them.
 */
type Json = Record<string, any>;

export interface FieldRule {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'unknown';
  nullable: boolean;
  min?: number; max?: number; maxLength?: number; minLength?: number; maxItems?: number; itemMaxLength?: number;
  pattern?: string;
  options?: string[];
  def?: unknown;
}

let loading: Promise<Json> | null = null;

/** The BotConfigInput JSON schema, fetched once per page load. */
export function loadConfigSchema(): Promise<Json> {
  loading ??= fetch('/api/openapi.json', { credentials: 'same-origin' })
    .then((r) => { if (!r.ok) throw new Error(`the API description answered ${r.status}`); return r.json(); })
    .then((doc: Json) => {
      const s = doc.components?.schemas?.BotConfigInput ?? doc.components?.schemas?.BotConfig;
      if (!s) throw new Error('the API description has no bot configuration schema');
      return s as Json;
    })
    .catch((e) => { loading = null; throw e; });
  return loading;
}

/** The schema node of a dotted path ("brain.maxOutputTokens"); null unions are unwrapped. */
function nodeAt(root: Json, path: string): Json | null {
  let node: Json | null = root;
  for (const key of path.split('.')) {
    node = node ? unwrap(node).properties?.[key] ?? null : null;
  }
  return node;
}

const unwrap = (n: Json): Json => {
  const alts = n.anyOf as Json[] | undefined;
  return alts ? (alts.find((a) => a.type !== 'null') ?? n) : n;
};

const BIG = 2 ** 52;

export function ruleAt(root: Json | null, path: string): FieldRule {
  const raw = root && nodeAt(root, path);
  if (!raw) return { type: 'unknown', nullable: false };
  const nullable = Array.isArray(raw.anyOf) && raw.anyOf.some((a: Json) => a.type === 'null');
  const n = unwrap(raw);
  const items = n.items ? unwrap(n.items) : undefined;
  return {
    type: n.enum ? 'string' : (n.type ?? 'unknown'),
    nullable,
    min: n.minimum, max: n.maximum !== undefined && n.maximum < BIG ? n.maximum : undefined,
    maxLength: n.maxLength, minLength: n.minLength, maxItems: n.maxItems, itemMaxLength: items?.maxLength,
    pattern: n.pattern,
    options: n.enum,
    def: raw.default ?? n.default,
  };
}

/** "256 to 128000", "up to 500 characters", "at least 8000", "up to 6 items of 80 characters". */
export function rangeText(r: FieldRule): string {
  if (r.type === 'number' || r.type === 'integer') {
    if (r.min !== undefined && r.max !== undefined) return `${r.min} to ${r.max}`;
    if (r.min !== undefined) return `at least ${r.min}`;
    return '';
  }
  if (r.type === 'string' && r.maxLength !== undefined && !r.options) return `up to ${r.maxLength} characters`;
  if (r.type === 'array' && r.maxItems !== undefined) return `up to ${r.maxItems} items${r.itemMaxLength ? ` of ${r.itemMaxLength} characters` : ''}`;
  return '';
}

export function defaultText(r: FieldRule, show?: (v: string) => string): string {
  const d = r.def;
  if (d === undefined) return '';
  if (d === null) return 'none';
  if (d === '') return 'empty';
  if (typeof d === 'boolean') return d ? 'on' : 'off';
  if (Array.isArray(d)) return d.length ? `${d.length} items` : 'none';
  if (typeof d === 'object') return '';
  return show ? show(String(d)) : String(d);
}
