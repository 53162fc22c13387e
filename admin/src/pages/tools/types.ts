/** Shapes of the tools API answers (HTTP tools, MCP servers, secrets) and the text helpers their forms share. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export interface HttpTool {
  id: string; name: string; description: string; label: string | null; method: Method; url: string; headers: Record<string, string>;
  bodyMode: 'none' | 'args' | 'template'; bodyTemplate: string | null; parameters: Record<string, unknown>; timeoutMs: number;
  createdAt: number; updatedAt: number;
}
export interface HttpTest { ok: boolean; status: number | null; durationMs: number; body: string; truncated: boolean; error: { code: string; message: string } | null }
export interface McpTool { name: string; title: string | null; description: string; inputSchema: Record<string, unknown>; destructive: boolean }
export interface McpServer {
  id: string; name: string; slug: string; transport: 'http' | 'stdio'; url: string | null; headerNames: string[]; command: string | null;
  args: string[]; envNames: string[]; tools: McpTool[]; toolsUpdatedAt: number; lastError: string | null; createdAt: number; updatedAt: number;
}
export interface McpTest { ok: boolean; isError: boolean; durationMs: number; content: string; error: { code: string; message: string } | null }
export interface Secret { id: string; name: string; createdAt: number; updatedAt: number }

/** "Name: value" lines -> a map (headers, environment). */
export function parsePairs(text: string, sep = ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    const i = t.indexOf(sep);
    if (i <= 0) throw new Error(`“${t}”: write one per line as Name${sep === ':' ? ':' : '='} value`);
    out[t.slice(0, i).trim()] = t.slice(i + 1).trim();
  }
  return out;
}
export const pairsText = (m: Record<string, string>, sep = ': ') => Object.entries(m).map(([k, v]) => `${k}${sep}${v}`).join('\n');

/** JSON from a text box, with a message naming the box when it does not parse. */
export function parseJson(text: string, what: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let v: unknown;
  try { v = JSON.parse(text); } catch (e) { throw new Error(`${what}: not valid JSON (${(e as Error).message})`, { cause: e }); }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what}: must be a JSON object, like {"city": "Paris"}`);
  return v as Record<string, unknown>;
}

/** Sample arguments from a JSON schema's properties: the example or default, else an empty value of the type. */
export function sampleArgs(schema: Record<string, unknown>): string {
  const props = (schema.properties ?? {}) as Record<string, { type?: string; default?: unknown; examples?: unknown[] }>;
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(props)) {
    out[k] = p.examples?.[0] ?? p.default ?? (p.type === 'number' || p.type === 'integer' ? 0 : p.type === 'boolean' ? false : '');
  }
  return JSON.stringify(out, null, 2);
}
