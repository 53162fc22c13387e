/**
 * The hosted-agent HTTP API of a kind D speech provider (key in the xi-api-key header): create, update, read and
 * delete an agent, and ask for the signed URL that opens one conversation with it. Failures are AgentApiError
 * (the provider's status, its words, and the field it objected to when it says) or the fetch's own error.
 */
import { SPEECH_BASE_URL } from '../speech.js';
import type { ProviderConnection } from '../types.js';

export interface HostedAgentApiOptions {
  /** Outbound fetch (the guarded client's); defaults to global fetch. */
  fetch?: typeof fetch;
  /** Per-request time limit. Default 15000. */
  timeoutMs?: number;
}

/** The provider answered with an error; `field` is the provider's path of the value it refused (dotted), if known. */
export class AgentApiError extends Error {
  constructor(readonly status: number, message: string, readonly field: string | null) {
    super(message);
  }
}

/** Words in an error's status code that tell which value was refused, when the provider gives no path. */
const FIELD_HINTS: Array<[RegExp, string]> = [
  [/voice/i, 'conversation_config.tts.voice_id'],
  [/llm/i, 'conversation_config.agent.prompt.llm'],
  [/model/i, 'conversation_config.tts.model_id'],
  [/language/i, 'conversation_config.agent.language'],
];

export class HostedAgentApi {
  readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly conn: Pick<ProviderConnection, 'apiKey' | 'baseUrl'>, opts: HostedAgentApiOptions = {}) {
    this.baseUrl = (conn.baseUrl || SPEECH_BASE_URL).replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
  }

  async create(body: Record<string, unknown>): Promise<string> {
    const r = await this.call<{ agent_id?: string }>('POST', '/v1/convai/agents/create', body);
    if (!r?.agent_id) throw new AgentApiError(502, 'the answer to agent creation carried no agent_id', null);
    return r.agent_id;
  }

  async update(agentId: string, body: Record<string, unknown>): Promise<void> {
    await this.call('PATCH', `/v1/convai/agents/${encodeURIComponent(agentId)}`, body);
  }

  async get(agentId: string): Promise<Record<string, unknown>> {
    return (await this.call<Record<string, unknown>>('GET', `/v1/convai/agents/${encodeURIComponent(agentId)}`)) ?? {};
  }

  async remove(agentId: string): Promise<void> {
    await this.call('DELETE', `/v1/convai/agents/${encodeURIComponent(agentId)}`);
  }

  /** A URL that opens one conversation with the agent (the provider signs it; it works once, for a short time). */
  async signedUrl(agentId: string): Promise<string> {
    const r = await this.call<{ signed_url?: string }>('GET', `/v1/convai/conversation/get-signed-url?agent_id=${encodeURIComponent(agentId)}`);
    if (!r?.signed_url) throw new AgentApiError(502, 'the answer carried no signed_url', null);
    return r.signed_url;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T | null> {
    const res = await this.fetchFn(`${this.baseUrl}${path}`, {
      method,
      headers: { 'xi-api-key': this.conn.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) throw errorOf(res.status, text || res.statusText);
    if (!text) return null;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new AgentApiError(502, `the answer to ${method} ${path.split('?')[0]} was not JSON`, null);
    }
  }
}

/**
 * Reads the provider's error body: validation errors as { detail: [{ loc, msg }] } (the first one), others as
 * { detail: { status, message } } or plain text.
 */
function errorOf(status: number, text: string): AgentApiError {
  let body: any;
  try { body = JSON.parse(text); } catch { return new AgentApiError(status, clip(text), null); }
  const d = body?.detail ?? body?.error ?? body;
  if (Array.isArray(d) && d.length) {
    const first = d[0] ?? {};
    const loc = Array.isArray(first.loc) ? first.loc.filter((p: unknown) => p !== 'body').join('.') : '';
    return new AgentApiError(status, clip(String(first.msg ?? text)), loc || null);
  }
  if (d && typeof d === 'object') {
    const message = clip(String(d.message ?? text));
    const hint = typeof d.status === 'string' ? FIELD_HINTS.find(([re]) => re.test(d.status)) : undefined;
    return new AgentApiError(status, message, typeof d.param === 'string' ? d.param : hint?.[1] ?? null);
  }
  return new AgentApiError(status, clip(typeof d === 'string' ? d : text), null);
}

function clip(s: string): string {
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
