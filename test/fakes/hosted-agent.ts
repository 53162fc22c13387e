/**
 * The hosted voice agent API of the fake speech provider (ElevenLabs Conversational AI's shapes): agents are
 * created, updated, read and deleted over HTTP with the xi-api-key header and checked like the real API (voice,
 * speech model, LLM, client tools), errors as { detail: { status, message } } or validation lists
 * { detail: [{ loc, msg }] }; a signed URL opens one conversation socket (hosted-agent-session.ts).
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AgentSession, type AgentConversationRecord } from './hosted-agent-session.js';
import { sendJson, type HandlerContext, type RecordedRequest } from './script.js';

export const FAKE_AGENT_LLMS = ['gpt-4o-mini', 'gpt-4o', 'gemini-2.0-flash', 'gemini-2.5-flash', 'claude-3-5-sonnet'];
const ENGLISH_ONLY_MODELS = ['eleven_turbo_v2', 'eleven_flash_v2'];
const AGENT_TTS_MODELS = [...ENGLISH_ONLY_MODELS, 'eleven_turbo_v2_5', 'eleven_flash_v2_5', 'eleven_multilingual_v2'];
const FORMATS = ['pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000', 'pcm_44100', 'ulaw_8000'];

export interface FakeAgent {
  agent_id: string;
  name: string;
  conversation_config: Record<string, any>;
  platform_settings: Record<string, any>;
}

export interface FakeHostedAgents {
  /** Agents as the fake holds them now, by id. */
  agents: Map<string, FakeAgent>;
  /** Every conversation socket opened, in order. */
  conversations: AgentConversationRecord[];
  /** What the fake's transcriber hears for the next spoken turns, in order; null: nothing intelligible. */
  hear(...texts: Array<string | null>): void;
  /** Real milliseconds between a reply's ~100 ms audio chunks (default 5); raise it to speak over the agent. */
  chunkIntervalMs: number;
  /** Real milliseconds between pings on each conversation (default 1000). */
  pingIntervalMs: number;
  /** Closes every open conversation socket with this code (default 1001). */
  closeAll(code?: number): void;
}

export interface HostedAgentMount {
  api: FakeHostedAgents;
  /** Handles /v1/convai/... requests; false when the path is not one of them. */
  handle(req: RecordedRequest, res: ServerResponse, ctx: HandlerContext): boolean;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: HandlerContext): void;
  close(): void;
}

function detail(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { detail: { status: code, message } });
}

function invalid(res: ServerResponse, loc: Array<string | number>, msg: string): void {
  sendJson(res, 422, { detail: [{ type: 'value_error', loc: ['body', ...loc], msg, input: null }] });
}

/** Objects merge, everything else (arrays included) replaces: how the API applies a PATCH. */
function merge(a: any, b: any): any {
  if (!a || typeof a !== 'object' || Array.isArray(a) || !b || typeof b !== 'object' || Array.isArray(b)) return b;
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = merge(a[k], v);
  return out;
}

/** The first problem of an agent's configuration as the API reports it, or null. */
function problemOf(cc: any, voices: string[]): { status?: number; code?: string; loc?: Array<string | number>; msg: string } | null {
  const loc = (...p: Array<string | number>) => ['conversation_config', ...p];
  const tts = cc?.tts ?? {};
  if (!tts.voice_id || !voices.includes(tts.voice_id)) return { status: 400, code: 'voice_not_found', msg: `A voice with voice_id ${tts.voice_id ?? '(none)'} was not found.` };
  if (tts.model_id !== undefined && !AGENT_TTS_MODELS.includes(tts.model_id)) return { loc: loc('tts', 'model_id'), msg: `Input should be ${AGENT_TTS_MODELS.map((m) => `'${m}'`).join(', ')}` };
  const language = cc?.agent?.language ?? 'en';
  if (language !== 'en' && ENGLISH_ONLY_MODELS.includes(tts.model_id)) return { loc: loc('tts', 'model_id'), msg: 'Non-english Agents must use turbo or flash v2_5.' };
  for (const [side, key] of [['asr', 'user_input_audio_format'], ['tts', 'agent_output_audio_format']] as const) {
    const f = cc?.[side]?.[key];
    if (f !== undefined && !FORMATS.includes(f)) return { loc: loc(side, key), msg: `Input should be ${FORMATS.map((x) => `'${x}'`).join(', ')}` };
  }
  const prompt = cc?.agent?.prompt ?? {};
  if (prompt.llm !== undefined && !FAKE_AGENT_LLMS.includes(prompt.llm)) return { loc: loc('agent', 'prompt', 'llm'), msg: `Input should be ${FAKE_AGENT_LLMS.map((m) => `'${m}'`).join(', ')}` };
  for (const [i, t] of (prompt.tools ?? []).entries()) {
    if (t?.type !== 'client') continue;
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(t.name ?? '')) return { loc: loc('agent', 'prompt', 'tools', i, 'name'), msg: 'String should match pattern ^[a-zA-Z0-9_-]{1,64}$' };
    const bad = badProperty(t.parameters, ['agent', 'prompt', 'tools', i, 'parameters']);
    if (bad) return { loc: loc(...bad.path), msg: bad.msg };
  }
  return null;
}

/** The API's schema subset: objects with properties, arrays with items, literals with a description each. */
function badProperty(s: any, path: Array<string | number>): { path: Array<string | number>; msg: string } | null {
  if (s?.type === 'object') {
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      const bad = badProperty(v, [...path, 'properties', k]);
      if (bad) return bad;
    }
    return null;
  }
  if (s?.type === 'array') return badProperty(s.items, [...path, 'items']);
  if (!['string', 'number', 'integer', 'boolean'].includes(s?.type)) return { path: [...path, 'type'], msg: `Input should be 'string', 'number', 'integer', 'boolean', 'object' or 'array'` };
  if (!s.description) return { path: [...path, 'description'], msg: 'Value error, Must set one of: description, dynamic_variable, is_system_provided, or constant_value' };
  return null;
}

export function mountHostedAgents(opts: { apiKey: string; voices: string[] }): HostedAgentMount {
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  const sessions: AgentSession[] = [];
  const heard: Array<string | null> = [];
  const signatures = new Map<string, string>();
  let seq = 0;
  const api: FakeHostedAgents = {
    agents: new Map(),
    conversations: [],
    hear: (...texts) => { heard.push(...texts); },
    chunkIntervalMs: 5,
    pingIntervalMs: 1000,
    closeAll: (code = 1001) => { for (const ws of sockets) ws.close(code, 'server closing'); },
  };

  const save = (res: ServerResponse, agent: FakeAgent, status: number, answer: unknown): void => {
    const p = problemOf(agent.conversation_config, opts.voices);
    if (p?.loc) return invalid(res, p.loc, p.msg);
    if (p) return detail(res, p.status ?? 400, p.code ?? 'invalid', p.msg);
    api.agents.set(agent.agent_id, agent);
    sendJson(res, status, answer);
  };

  const handle = (req: RecordedRequest, res: ServerResponse): boolean => {
    const route = `${req.method} ${req.path}`;
    if (!req.path.startsWith('/v1/convai/')) return false;
    const body = req.body ?? {};
    if (route === 'POST /v1/convai/agents/create') {
      if (!body.conversation_config) { invalid(res, ['conversation_config'], 'Field required'); return true; }
      const agent: FakeAgent = { agent_id: `agent_fake${String(++seq).padStart(4, '0')}`, name: body.name ?? '', conversation_config: body.conversation_config, platform_settings: body.platform_settings ?? {} };
      save(res, agent, 200, { agent_id: agent.agent_id });
      return true;
    }
    if (route === 'GET /v1/convai/conversation/get-signed-url') {
      const id = req.query.agent_id ?? '';
      if (!api.agents.has(id)) { detail(res, 404, 'agent_not_found', `Agent with id ${id} not found`); return true; }
      const signature = randomBytes(12).toString('hex');
      signatures.set(signature, id);
      sendJson(res, 200, { signed_url: `${ctxOrigin(req).replace(/^http/, 'ws')}/v1/convai/conversation?agent_id=${encodeURIComponent(id)}&conversation_signature=${signature}` });
      return true;
    }
    const m = /^(GET|PATCH|DELETE) \/v1\/convai\/agents\/([^/]+)$/.exec(route);
    if (!m) { detail(res, 404, 'not_found', `Not found: ${route}`); return true; }
    const id = decodeURIComponent(m[2]);
    const agent = api.agents.get(id);
    if (!agent) { detail(res, 404, 'agent_not_found', `Agent with id ${id} not found`); return true; }
    if (m[1] === 'GET') sendJson(res, 200, agent);
    else if (m[1] === 'DELETE') { api.agents.delete(id); sendJson(res, 200, {}); }
    else save(res, merge(agent, { name: body.name, conversation_config: body.conversation_config, platform_settings: body.platform_settings }), 200, { agent_id: id });
    return true;
  };

  return {
    api,
    handle,
    upgrade(req, socket, head, ctx) {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname !== '/v1/convai/conversation') return refuse(socket, 404, 'not_found', `Not found: ${url.pathname}`);
      const id = url.searchParams.get('agent_id') ?? '';
      const agent = api.agents.get(id);
      if (!agent) return refuse(socket, 404, 'agent_not_found', `Agent with id ${id} not found`);
      const signature = url.searchParams.get('conversation_signature');
      const signed = signature !== null && signatures.get(signature) === id;
      if (signed) signatures.delete(signature!);
      const needsAuth = agent.platform_settings?.auth?.enable_auth === true;
      if (needsAuth && !signed && req.headers['xi-api-key'] !== opts.apiKey) return refuse(socket, 403, 'auth_required', 'This agent requires authentication: use a signed URL.');
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.add(ws);
        const session = new AgentSession(ws, agent, ctx, {
          chunkIntervalMs: () => api.chunkIntervalMs,
          pingIntervalMs: () => api.pingIntervalMs,
          nextHeard: () => (heard.length ? heard.shift()! : undefined),
        });
        sessions.push(session);
        api.conversations.push(session.record);
        ws.on('close', (code) => { sockets.delete(ws); session.closed(code); });
      });
    },
    close() {
      for (const ws of sockets) ws.terminate();
      for (const s of sessions) s.closed(1006);
      wss.close();
    },
  };
}

/** The origin the client used, so signed URLs point back at this fake. */
function ctxOrigin(req: RecordedRequest): string {
  return `http://${req.headers.host ?? '127.0.0.1'}`;
}

function refuse(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ detail: { status: code, message } });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
