/** The effective configuration, as the server would read it from this environment, secrets masked. */
import type { Config } from '../config/index.js';

const SECRET_FIELDS = new Set(['secretKey', 'qdrantApiKey', 'metricsToken']);

/** Shows that a secret is set and its last four characters, never the rest. */
const mask = (v: string) => (v.length > 12 ? `****${v.slice(-4)}` : '****');

/** Passwords inside URLs (mongodb://user:pass@host, redis://:pass@host) are masked too. */
function maskUrl(v: string): string {
  return v.replace(/^([a-z+]+:\/\/)([^:@/]*):([^@/]+)@/i, (_m, scheme: string, user: string) => `${scheme}${user}:****@`);
}

export function effectiveConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (typeof v === 'string' && SECRET_FIELDS.has(k)) out[k] = mask(v);
    else if (typeof v === 'string' && /^[a-z+]+:\/\//i.test(v)) out[k] = maskUrl(v);
    else out[k] = v;
  }
  if (!config.secretKey) out.secretKey = '(not set: DATA_DIR/secret.key is used)';
  return out;
}
