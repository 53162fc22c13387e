/**
 * security.allowedOrigins (bot-config.md): a full origin (https://example.com), https://*.example.com
 * (subdomains only, not the apex), http://localhost:* (any port), a bare host (http or https, default ports),
 * or '*'. An empty list allows any site. A missing Origin header (not a browser) is allowed only when any
 * site is allowed.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.length === 0 || allowed.includes('*')) return true;
  if (!origin || origin === 'null') return false;
  let url: URL;
  try { url = new URL(origin); } catch { return false; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  const port = url.port; // '' for the scheme's default port
  return allowed.some((rule) => matches(rule.trim().toLowerCase(), url.protocol, host, port));
}

function matches(rule: string, protocol: string, host: string, port: string): boolean {
  const m = /^(?:(https?):\/\/)?([^/:[\]]+|\[[^\]]+\])(?::(\d{1,5}|\*))?\/?$/.exec(rule);
  if (!m) return false;
  const [, scheme, ruleHost, rulePort] = m;
  if (scheme && `${scheme}:` !== protocol) return false;
  const want = rulePort === undefined ? '' : rulePort === '*' ? '*' : defaultless(protocol, rulePort);
  if (want !== '*' && want !== defaultless(protocol, port)) return false;
  if (ruleHost.startsWith('*.')) {
    const base = ruleHost.slice(1); // '.example.com': subdomains only, never the apex
    return host.endsWith(base) && host.length > base.length;
  }
  // URL.hostname keeps IPv6 brackets, as the rule writes them.
  return host === ruleHost;
}

/** A port with the scheme's default written as ''. */
function defaultless(protocol: string, port: string): string {
  if ((protocol === 'https:' && port === '443') || (protocol === 'http:' && port === '80')) return '';
  return port;
}
