/**
 * Shared setup for team, leads, analytics and visitors tests: a real server with an owner and an agent, a fake
 * OpenAI-compatible provider, a published bot (through the public API), and WebSocket clients for the live
 * socket and the widget chat socket that queue frames so tests can wait for the next one of a type.
 */
import WebSocket from 'ws';
import type { Clock } from '../../src/kernel/clock.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { addMember, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

export interface Frame { type?: string; t?: string; data?: any; [k: string]: any }

/** A WebSocket client that keeps every frame; `next` waits for the next frame matching a predicate. */
export class FrameClient {
  readonly frames: Frame[] = [];
  private taken = new Set<number>();
  closed: { code: number; reason: string } | null = null;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => { this.frames.push(JSON.parse(String(raw))); });
    ws.on('close', (code, reason) => { this.closed = { code, reason: String(reason) }; });
  }

  /** The earliest frame not returned before for which `match` holds, waiting for it if needed. */
  next(match: (f: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    return until(() => {
      for (let i = 0; i < this.frames.length; i++) {
        if (!this.taken.has(i) && match(this.frames[i])) { this.taken.add(i); return this.frames[i]; }
      }
      if (this.closed) throw new Error(`socket closed (${this.closed.code}) while waiting; frames: ${JSON.stringify(this.frames).slice(0, 2000)}`);
      return null;
    }, { timeout: timeoutMs, interval: 5, message: () => `a matching frame; frames: ${JSON.stringify(this.frames).slice(0, 2000)}` });
  }

  event(type: string, where: (data: any) => boolean = () => true) { return this.next((f) => f.type === type && where(f.data)); }
  frame(t: string, where: (f: Frame) => boolean = () => true) { return this.next((f) => f.t === t && where(f)); }
  /** Every frame seen so far of this live event type. */
  all(type: string) { return this.frames.filter((f) => f.type === type || f.t === type); }
  send(obj: unknown) { this.ws.send(JSON.stringify(obj)); }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => { this.ws.once('close', () => resolve()); this.ws.close(); });
  }
}

/**
 * Opens a WebSocket; resolves with the client at its first frame (hello, ready), or rejects with the refused
 * status: an HTTP answer to the upgrade, or an error frame and a close 4000 + status once the socket was open.
 */
export function connect(url: string, headers: Record<string, string> = {}): Promise<FrameClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const client = new FrameClient(ws);
    const refuse = (status: number) => reject(Object.assign(new Error(`refused ${status}`), { status }));
    ws.once('message', (data) => {
      const f = JSON.parse(String(data));
      if (f.t !== 'error' && f.type !== 'error') return resolve(client);
      ws.once('close', (code) => refuse(code >= 4000 && code < 5000 ? code - 4000 : code));
    });
    ws.once('unexpected-response', (_req, res) => refuse(res.statusCode ?? 0));
    ws.once('error', reject);
  });
}

export interface TeamWorld {
  server: TestServer;
  fake: FakeServer;
  owner: TestSession;
  agent: TestSession;
  botId: string;
  providerId: string;
  /** Opens the live socket as this person. */
  live(who: TestSession): Promise<FrameClient>;
  /** Opens the widget chat socket as a new (or returning, with visitorToken) visitor. */
  widget(opts?: { visitorToken?: string; userId?: string; email?: string; name?: string }): Promise<FrameClient>;
  stop(): Promise<void>;
}

/** A server with an owner, an agent ("Alex Agent"), a fake provider and a bot published with `config`. */
export async function startTeamWorld(config: Record<string, unknown> = {}, opts: { clock?: Clock } = {}): Promise<TeamWorld> {
  const server = await startTestServer({ clock: opts.clock });
  const fake = await startFakeOpenAI();
  const owner = await setupOwner(server);
  const agent = await addMember(server, owner, 'agent', { name: 'Alex Agent' });
  const must = (what: string, r: { status: number; body: any }, status: number) => {
    if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const provider = must('POST /providers', await server.request('POST', '/api/v1/providers', {
    body: { kind: 'openai_compatible', name: 'Fake', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, headers: owner.headers,
  }), 201);
  const providerId = provider.id ?? provider.connection?.id;
  const bot = must('POST /bots', await server.request('POST', '/api/v1/bots', { body: { name: 'Helper' }, headers: owner.headers }), 201);
  const botId = bot.id ?? bot.bot?.id;
  const full = { ...config, brain: { connectionId: providerId, model: 'gpt-4o-mini', ...(config.brain as object | undefined) } };
  must('PATCH /bots/{id}', await server.request('PATCH', `/api/v1/bots/${botId}`, {
    body: { revision: bot.revision ?? bot.bot?.revision, patch: full }, headers: owner.headers,
  }), 200);
  const published = await server.request('POST', `/api/v1/bots/${botId}/publish`, { body: {}, headers: owner.headers });
  if (published.status !== 200 && published.status !== 201) throw new Error(`publish answered ${published.status}: ${JSON.stringify(published.body)}`);
  const wsBase = server.url.replace('http', 'ws');
  const opened: FrameClient[] = [];
  const track = async (p: Promise<FrameClient>) => { const c = await p; opened.push(c); return c; };
  return {
    server, fake, owner, agent, botId, providerId,
    live: (who) => track(connect(`${wsBase}/api/v1/live`, { cookie: who.cookie })),
    widget: (o = {}) => {
      const q = new URLSearchParams({ botId, ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, string> });
      return track(connect(`${wsBase}/widget/v1/chat?${q}`));
    },
    async stop() {
      await Promise.all(opened.map((c) => c.close()));
      await server.stop();
      await fake.close();
    },
  };
}

/** Deep-patches the bot's draft and publishes it; conversations started afterwards use the new version. */
export async function republish(w: TeamWorld, patch: Record<string, unknown>): Promise<void> {
  const bot = await w.server.request('GET', `/api/v1/bots/${w.botId}`, { headers: w.owner.headers });
  const revision = bot.body.revision ?? bot.body.bot?.revision;
  const r = await w.server.request('PATCH', `/api/v1/bots/${w.botId}`, { body: { revision, patch }, headers: w.owner.headers });
  if (r.status !== 200) throw new Error(`PATCH answered ${r.status}: ${JSON.stringify(r.body)}`);
  const p = await w.server.request('POST', `/api/v1/bots/${w.botId}/publish`, { body: {}, headers: w.owner.headers });
  if (p.status !== 200 && p.status !== 201) throw new Error(`publish answered ${p.status}: ${JSON.stringify(p.body)}`);
}

/** A visitor who has said `text` and got the agent's answer; returns the socket and the conversation id. */
export async function chattingVisitor(w: TeamWorld, text: string) {
  const visitor = await w.widget();
  await visitor.frame('ready');
  visitor.send({ t: 'message', text });
  const conv = await visitor.frame('conversation');
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  return { visitor, conversationId: conv.conversationId as string };
}
