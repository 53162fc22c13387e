/**
 * End-to-end set-up for the widget tests: the real server serving the bundles `npm run build` wrote (dist/public), a fake OpenAI,
 * a bot made through the REST API, a host page on another loopback origin, and headless Chromium
 * (Debian's /usr/bin/chromium driven by playwright-core).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import type { Clock } from '../../src/kernel/clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { built, type Bundle, type BundleSize } from '../helpers/built.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

export const CHROMIUM = '/usr/bin/chromium';

export interface WidgetWorld {
  server: TestServer;
  /** With `serverProcess`: the same server as a child process, to kill -9 and restart (`server.app` is not there). */
  proc: ServerProcess | null;
  /** The fake OpenAI (chat completions, and `realtime` for voice). */
  fake: FakeOpenAI;
  owner: TestSession;
  sizes: Record<Bundle, BundleSize>;
  /** The host site's origin (another port, so another origin than the server). */
  siteUrl: string;
  /** Creates, configures and publishes a bot; returns its id. */
  createBot(patch?: Record<string, unknown>): Promise<string>;
  /** Serves this HTML at `path` on the host site. */
  page(path: string, html: string): string;
  /** An HTML page embedding the loader with these data- attributes, plus optional extra HTML before it. */
  embed(botId: string, attrs?: Record<string, string>, extra?: string): string;
  /**
   * A fresh browser page (own context: empty storage) that records the chat frames in window.__frames
   * (binary frames counted in __binIn/__binOut); options go to the context (permissions, reducedMotion).
   */
  newPage(viewport?: { width: number; height: number }, options?: BrowserContextOptions): Promise<Page>;
  /**
   * Opens the bot's chat as a visitor does: a fresh page (newPage), the host page at `path` embedding the bot, a click
   * on the launcher, and the open window's message box there (see openChat for the options).
   */
  openChat(botId: string, opts?: OpenChatOptions): Promise<Page>;
  close(): Promise<void>;
}

export interface OpenChatOptions {
  /** The host page's path (default: a new one each call). */
  path?: string;
  /** embed()'s data- attributes and extra HTML. */
  attrs?: Record<string, string>;
  extra?: string;
  /** newPage()'s viewport and context options. */
  viewport?: { width: number; height: number };
  options?: BrowserContextOptions;
  /** Runs on the fresh page before it loads the host page (init scripts, routes, a fake clock). */
  before?(page: Page): Promise<unknown>;
}

/** Clicks the launcher and waits until the open chat window's message box is there. */
export async function openLauncher(page: Page): Promise<void> {
  await page.locator('button.l').click();
  await page.locator('.w:not([hidden]) .cp textarea').waitFor();
}

const RECORD_FRAMES = `(() => {
  window.__frames = []; window.__frameAt = []; window.__sent = []; window.__urls = []; window.__sockets = []; window.__audioOut = [];
  // Microphone frames sent (kind byte 1, then PCM16): samples and loudness (RMS of the samples) of each.
  const audioOut = (d) => {
    const u = d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
    if (u[0] !== 1) return;
    const pcm = new Int16Array(u.slice(1).buffer);
    let sq = 0;
    for (let i = 0; i < pcm.length; i++) sq += pcm[i] * pcm[i];
    window.__audioOut.push({ samples: pcm.length, rms: Math.sqrt(sq / Math.max(1, pcm.length)) / 32768 });
  };
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...a) { super(...a); window.__urls.push(String(a[0])); window.__sockets.push(this); this.addEventListener('message', (e) => { if (typeof e.data !== 'string') { window.__binIn = (window.__binIn || 0) + 1; return; } try { window.__frames.push(JSON.parse(e.data)); window.__frameAt.push(performance.now()); } catch {} }); }
    // A slow network on demand (holdFrames): from the first frame holding window.__holdFrom on, the widget gets
    // frames only when they are released.
    set onmessage(fn) {
      super.onmessage = fn && ((e) => {
        const deliver = () => fn.call(this, e);
        if (!window.__held && window.__holdFrom && typeof e.data === 'string' && e.data.includes(window.__holdFrom)) window.__held = [];
        if (window.__held) window.__held.push(deliver); else deliver();
      });
    }
    get onmessage() { return super.onmessage; }
    send(d) { if (typeof d !== 'string') { window.__binOut = (window.__binOut || 0) + 1; audioOut(d); } else try { window.__sent.push(JSON.parse(d)); } catch {} return super.send(d); }
  };
})();`;

/** browserArgs: extra Chromium flags (voice tests add the fake microphone); serverProcess: run the server in a child process. */
export async function startWidgetWorld(opts: { browserArgs?: string[]; clock?: Clock; serverProcess?: boolean; env?: Record<string, string> } = {}): Promise<WidgetWorld> {
  const sizes = built().widget;
  const proc = opts.serverProcess ? await startServerProcess() : null;
  // The child's server answers the same HTTP calls; only its in-process handles (app, http) are missing.
  const [server, fake] = await Promise.all([proc ? (proc as unknown as TestServer) : startTestServer({ clock: opts.clock, env: opts.env }), startFakeOpenAI()]);
  const owner = await setupOwner(server);
  const as = async (method: string, path: string, body?: unknown) => {
    const r = await server.request(method, `/api/v1${path}`, { body, headers: owner.headers });
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const provider = await as('POST', '/providers', { kind: 'openai', name: 'Fake OpenAI', apiKey: fake.apiKey, baseUrl: fake.baseUrl });

  const pages = new Map<string, string>();
  const site: Server = createServer((req, res) => {
    const html = pages.get((req.url ?? '/').split('?')[0]);
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  // playwright-core refuses --user-data-dir in launch(); it starts Chromium with its own fresh temp profile
  // folder (and removes it on close), and each newContext() below is a clean incognito-like profile.
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', ...(opts.browserArgs ?? [])],
  });
  const contexts: BrowserContext[] = [];
  let chats = 0;

  const world: WidgetWorld = {
    server, proc, fake, owner, sizes, siteUrl,
    async createBot(patch = {}) {
      const bot = await as('POST', '/bots', { name: 'Widget bot' });
      const edited = await as('PATCH', `/bots/${bot.id}`, {
        revision: bot.revision,
        patch: { brain: { connectionId: provider.id, model: 'gpt-4o-mini' }, identity: { agentName: 'Ava', role: 'Support assistant' }, ...patch },
      });
      await as('POST', `/bots/${bot.id}/publish`, { revision: edited.revision });
      return bot.id as string;
    },
    page(path, html) { pages.set(path, html); return siteUrl + path; },
    embed(botId, attrs = {}, extra = '') {
      const data = Object.entries({ 'bot-id': botId, ...attrs }).map(([k, v]) => ` data-${k}="${v}"`).join('');
      return `<!doctype html><html><head><meta charset="utf-8"><title>Host page</title>
<style>body{font-family:serif;background:#f4f1ea;margin:0;padding:24px} button{all:unset} h1{color:#333}</style></head>
<body><h1>Acme Widgets</h1><p>The host page's own content, with styles that must not leak into the chat.</p>${extra}
<script src="${server.url}/static/widget/loader.js"${data} async></script></body></html>`;
    },
    async newPage(viewport = { width: 1280, height: 800 }, options = {}) {
      const ctx = await browser.newContext({ viewport, ...options });
      contexts.push(ctx);
      await ctx.addInitScript(RECORD_FRAMES);
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      page.on('pageerror', (err) => console.error('page error:', err.message));
      return page;
    },
    async openChat(botId, o = {}) {
      const page = await world.newPage(o.viewport, o.options);
      await o.before?.(page);
      await page.goto(world.page(o.path ?? `/chat-${++chats}`, world.embed(botId, o.attrs, o.extra)));
      await openLauncher(page);
      return page;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await new Promise<void>((resolve) => { site.closeAllConnections(); site.close(() => resolve()); });
      await server.stop();
      await fake.close();
    },
  };
  return world;
}

/** The visitor token the widget keeps for `botId`, once its socket's `ready` has stored it (opening the panel does not wait for that). */
export async function visitorTokenOf(page: Page, botId: string): Promise<string> {
  const token = await page.waitForFunction((id) => localStorage.getItem(`sc:vt:${id}`), botId, { timeout: 10_000 });
  return (await token.jsonValue()) as string;
}

/** Frames the page's chat socket received, of type t. */
export const framesOf = (page: Page, t: string): Promise<any[]> => page.evaluate((type) => (window as any).__frames.filter((f: any) => f.t === type), t);
/** When (the page's performance.now()) the first received frame of type t arrived; null if none has. */
export const frameTimeOf = (page: Page, t: string): Promise<number | null> => page.evaluate((type) => {
  const w = window as any;
  const i = w.__frames.findIndex((f: any) => f.t === type);
  return i < 0 ? null : w.__frameAt[i];
}, t);

/**
 * A slow network: from the first frame the page receives that contains `text`, the widget gets the chat socket's
 * frames only at release() (they are still recorded in window.__frames as they arrive). `holding()` says whether that
 * frame has come.
 */
export async function holdFrames(page: Page, text: string) {
  await page.evaluate((t) => { (window as any).__holdFrom = t; }, text);
  return {
    holding: () => page.evaluate(() => !!(window as any).__held),
    // One frame a task, as a network delivers them (frames coming meanwhile queue behind); then frames flow again.
    // (A string: tsx would name the inner function with a helper the page does not have.)
    release: () => page.evaluate(`new Promise((done) => {
      const next = () => {
        const deliver = window.__held && window.__held.shift();
        if (deliver) { deliver(); setTimeout(next, 0); return; }
        window.__held = null;
        window.__holdFrom = null;
        done();
      };
      next();
    })`) as Promise<void>,
  };
}

/**
 * Records, from now on, each value the widget's first `selector` element shows (its `attribute`, or its text) and when
 * (the page's performance.now()) it began: window.__shown[selector], read with shownOf.
 */
export async function recordShown(page: Page, selector: string, attribute?: string): Promise<void> {
  await page.locator('[data-service-chat]').evaluate((host, [sel, attr]) => {
    const root = host.shadowRoot!;
    const w = window as any;
    const seen: Array<{ value: string; at: number }> = [];
    (w.__shown ??= {})[sel!] = seen;
    new MutationObserver(() => {
      const el = root.querySelector(sel!);
      const value = el ? (attr ? el.getAttribute(attr) : el.textContent) : null;
      if (value !== null && value !== seen.at(-1)?.value) seen.push({ value, at: performance.now() });
    }).observe(root, { subtree: true, childList: true, characterData: !attr, attributes: !!attr, ...(attr ? { attributeFilter: [attr] } : {}) });
  }, [selector, attribute]);
}

/** The values recordShown saw `selector` show, in order. */
export const shownOf = (page: Page, selector: string): Promise<string[]> => page.evaluate((sel) => (window as any).__shown[sel].map((s: any) => s.value), selector);

/** Records the voice bar's playback state as it changes (for msUntilStopped). */
export const recordPlayback = (page: Page) => recordShown(page, '.vb', 'data-playing');

/**
 * Milliseconds, in the page's own clock, from `since` (a frame's arrival, a key press) to the first moment after it the
 * voice bar said playback stopped (recordPlayback must be on). Measured inside the page, so the test's round trips to
 * a busy browser do not count.
 */
export async function msUntilStopped(page: Page, since: number): Promise<number> {
  const stopped = await page.waitForFunction((t) => (window as any).__shown['.vb'].find((s: any) => s.value === 'false' && s.at >= t) ?? null, since, { timeout: 10_000 });
  return ((await stopped.jsonValue()) as { at: number }).at - since;
}

/** Frames the page's chat socket sent, of type t. */
export const sentOf = (page: Page, t: string): Promise<any[]> => page.evaluate((type) => (window as any).__sent.filter((f: any) => f.t === type), t);
/** The microphone frames the page sent so far: samples and RMS (0..1) of each, in order. */
export const micFramesOf = (page: Page): Promise<Array<{ samples: number; rms: number }>> => page.evaluate(() => (window as any).__audioOut);

/** Waits until the element's finite animations (opening, fading in) have finished; endless ones (typing dots) are left running. */
export async function settled(locator: Locator) {
  await locator.waitFor();
  await locator.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished)));
}

/** Waits until every widget on the page has finished its finite animations (a window fading in, a launcher popping up). */
export const widgetSettled = (page: Page) => page.evaluate(() => Promise.all([...document.querySelectorAll('[data-service-chat]')]
  .flatMap((host) => host.shadowRoot?.getAnimations() ?? [])
  .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished)));

/** The element's box once its opening animation has finished (a slow machine measures it mid-animation otherwise). */
export async function settledBox(locator: Locator) {
  await settled(locator);
  return (await locator.boundingBox())!;
}
