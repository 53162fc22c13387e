import WebSocket from 'ws';
import type { Clock } from '../../src/kernel/clock.js';
import { BotConfigSchema, type BotConfigInput } from '../../src/bots/config/index.js';
import { sealSecret } from '../../src/security/secret-box.js';
import { newId } from '../../src/store/ids.js';
import { startFakeGemini } from '../fakes/gemini.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export type Kind = 'openai_compatible' | 'openai' | 'gemini';
export const MODEL: Record<Kind, string> = { openai_compatible: 'gpt-4o-mini', openai: 'gpt-4o-mini', gemini: 'gemini-2.5-flash' };

export interface ChatWorld {
  server: TestServer;
  fake: FakeServer;
  owner: TestSession;
  botId: string;
  workspaceId: string;
  /** Opens a scripted visitor on the widget socket. */
  visitor(query?: Record<string, string>, headers?: Record<string, string>): Promise<Visitor>;
  /** Raw connect attempt: the status of a refusal (an HTTP answer, or a close 4000 + status), or 101 at `ready`. */
  tryConnect(query?: Record<string, string>, headers?: Record<string, string>): Promise<{ status: number; body: any; closeCode?: number }>;
  setBot(patch: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/** A server with an owner, a provider connection of `kind` pointed at a fake, and a published bot. */
export async function startChatWorld(opts: { kind?: Kind; config?: BotConfigInput; clock?: Clock; identitySecret?: string; env?: Record<string, string> } = {}): Promise<ChatWorld> {
  const kind = opts.kind ?? 'openai';
  const fake = kind === 'gemini' ? await startFakeGemini() : await startFakeOpenAI();
  const server = await startTestServer({ clock: opts.clock, env: opts.env });
  const owner = await setupOwner(server);
  const { app } = server;
  const workspaceId = owner.workspaceId;
  const providerId = newId('prov');
  await app.store.collection('providers').insertOne({
    _id: providerId, workspaceId, kind, name: 'fake', baseUrl: fake.baseUrl, apiKeySealed: sealSecret(fake.apiKey, app.secretKey, providerId), createdAt: 0,
  } as any);
  const botId = newId('bot');
  const config = BotConfigSchema.parse({ ...(opts.config ?? {}), brain: { connectionId: providerId, model: MODEL[kind], ...(opts.config?.brain ?? {}) } });
  const now = app.clock.now();
  await app.store.collection('bots').insertOne({
    _id: botId, workspaceId, name: 'Test bot', status: 'running', draft: config, revision: 1,
    published: { version: 1, config, publishedAt: now }, createdAt: now, updatedAt: now,
    ...(opts.identitySecret ? { identitySecretSealed: sealSecret(opts.identitySecret, app.secretKey, botId) } : {}),
  } as any);
  const base = server.url.replace('http', 'ws');
  const urlFor = (q: Record<string, string>) => `${base}/widget/v1/chat?${new URLSearchParams({ botId, ...q })}`;
  return {
    server, fake, owner, botId, workspaceId,
    visitor: (q = {}, h = {}) => Visitor.open(urlFor(q), h),
    tryConnect: (q = {}, h = {}) => tryConnect(urlFor(q), h),
    async setBot(patch) {
      // Through the bots area's collection, as every change the server makes (the kept bots and lists hear of it).
      await app.records.bots.updateOne({ workspaceId, _id: botId }, { $set: patch });
    },
    async close() {
      await server.stop();
      await fake.close();
    },
  };
}

/**
 * Connects as a widget and reports how the server answered: 101 at the `ready` frame; else the refusal's status and
 * its error body, from an HTTP answer to the upgrade (checks made from memory) or from the error frame and the
 * close code 4000 + status that follow the upgrade (checks that read the store; docs/widget-protocol.md).
 */
export function tryConnect(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; closeCode?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    let error: any = null;
    ws.on('message', (data) => {
      const f = JSON.parse(String(data));
      if (f.t === 'ready') { ws.close(); resolve({ status: 101, body: null }); } else if (f.t === 'error') error = f;
    });
    ws.on('close', (code) => {
      // 4400-4499 are refusals after the upgrade; any other close before ready, likewise.
      const status = code >= 4400 && code < 4600 ? code - 4000 : code;
      resolve({ status, closeCode: code, body: error && { error: { code: error.code, message: error.message } } });
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }); });
    });
    ws.on('error', () => { /* reported through unexpected-response */ });
  });
}

/** A scripted widget: sends frames, and waits for the frames it expects (in arrival order). */
/** A frame as a timeout's message names it: its type, and for an error its code and words. */
const frameSummary = (f: any): string => (f.t === 'error' ? `error ${f.code}: ${f.message}` : f.t);

export class Visitor {
  readonly frames: any[] = [];
  /** Binary frames (voice audio), in arrival order. */
  readonly audio: Buffer[] = [];
  private waiters: Array<{ pred: (f: any) => boolean; resolve: (f: any) => void; from: number }> = [];
  private cursor = 0;
  ready: any;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) { this.audio.push(data as Buffer); return; }
      const f = JSON.parse(String(data));
      this.frames.push(f);
      this.waiters = this.waiters.filter((w) => {
        const i = this.frames.findIndex((x, k) => k >= w.from && w.pred(x));
        if (i < 0) return true;
        w.resolve(this.frames[i]);
        return false;
      });
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<Visitor> {
    const ws = new WebSocket(url, { headers });
    const v = new Visitor(ws);
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    v.ready = await v.next('ready');
    return v;
  }

  send(frame: unknown): void { this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)); }
  say(text: string, extra: Record<string, unknown> = {}): void { this.send({ t: 'message', text, ...extra }); }

  /** The next frame (after the last one taken) of type `t` that matches `pred`; fails after `ms`. */
  next(t: string, pred: (f: any) => boolean = () => true, ms = 5000): Promise<any> {
    const match = (f: any) => f.t === t && pred(f);
    const from = this.cursor;
    const take = (f: any) => { this.cursor = Math.max(this.cursor, this.frames.indexOf(f) + 1); return f; };
    const i = this.frames.findIndex((f, k) => k >= from && match(f));
    if (i >= 0) return Promise.resolve(take(this.frames[i]));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${t} frame within ${ms} ms; got ${JSON.stringify(this.frames.slice(from).map(frameSummary))}`)), ms);
      this.waiters.push({ pred: match, from, resolve: (f) => { clearTimeout(timer); resolve(take(f)); } });
    });
  }

  /** Waits for the stored assistant reply, returning it with the deltas streamed for it. */
  async reply(ms = 5000): Promise<{ message: any; deltas: string[] }> {
    const m = await this.next('message', (f) => f.message.role === 'assistant', ms);
    const deltas = this.frames.filter((f) => f.t === 'delta' && f.messageId === m.message.id).map((f) => f.delta);
    return { message: m.message, deltas };
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
