/**
 * The widget loader (kept a few KB): reads its script tag or ServiceChat.boot() options, fetches the bot's
 * public config, draws the launcher and the greeting teaser inside a shadow root, and loads the chat UI
 * (chat.js) on first open - at once for the inline layout. It owns the page-facing API (window.ServiceChat).
 */
import { PRESETS } from './face/skins.js';
import { loadLanguage } from './i18n.js';
import { accentColours, FONTS, MOBILE_QUERY } from './theme.js';
import type { BootOptions, ChatEvent, ChatHandle, Core, Identity, PageTool, VoiceStartOptions, WidgetConfig } from './types.js';

const W = window as any;
const doc = document;
const script = doc.currentScript as HTMLScriptElement | null;
const svg = (w: string, p: string) => `<svg viewBox="0 0 24 24" width="${w}" ${p}</svg>`;
const ICON_CHAT = svg('50%', 'fill="currentColor"><path d="M4 4h16q2 0 2 2v10q0 2-2 2H9l-5 4v-4q-2 0-2-2V6q0-2 2-2z"/>');
const ICON_X = svg('40%', 'stroke="currentColor" stroke-width="2.5"><path d="M5 5l14 14M19 5L5 19"/>');

let opts: BootOptions = {};
let identity: Identity = {};
const tools = new Map<string, PageTool>();
const listeners: Record<string, Set<(d?: unknown) => void>> = {};
let core: Core | null = null;
let host: HTMLElement | null = null;
let launcher: HTMLElement | null = null;
let teaser: HTMLElement | null = null;
let chat: ChatHandle | null = null;
let loading: Promise<ChatHandle | null> | null = null;
const modules: Record<string, Promise<any>> = {};
let opened = false;
let wantOpen = false;
/** The page element that had the keyboard when the chat opened: focus goes back to it on close without a launcher. */
let returnTo: HTMLElement | null = null;
let timer = 0;
let boots = 0;
let stringsReady: Promise<void> = Promise.resolve();

const store = (s: Storage, k: string, v?: string) => { try { return v === undefined ? s.getItem(k) : (s.setItem(k, v), v); } catch { return null; } };
const emit = (e: ChatEvent, d?: any) => {
  // Replies while the window is closed: a count on the launcher; a team member's reply while the window is closed
  // or the tab hidden also puts the count in the page title, until the visitor looks.
  if (e == 'message' && /^(assistant|human_agent)$/.test(d?.role) && (!opened || doc.hidden)) {
    if (!opened) unread++;
    if (d.role == 'human_agent') { titled = true; ding(); }
    cue();
  }
  listeners[e]?.forEach((cb) => { try { cb(d); } catch (err) { console.error(err); } });
};
let unread = 0;
let titled = false;
const title = doc.title;
/** Shows (or clears) the unread count on the launcher and the title cue. */
function cue() {
  doc.title = titled ? `(${unread || 1}) ${title}` : title;
  mark(opened);
  launcher?.querySelector('i')?.remove();
  if (unread) launcher?.append(el('i', 'n', unread > 9 ? '9+' : unread + ''));
}
let audio: AudioContext | undefined;
/** A soft two-note chime for a team member's reply the visitor cannot see (browsers allow it once they clicked). */
function ding() {
  try {
    audio ??= new AudioContext();
    const t = audio.currentTime;
    [660, 880].forEach((hz, i) => {
      const o = audio!.createOscillator(), g = audio!.createGain(), at = t + i * 0.12;
      o.frequency.value = hz;
      g.gain.setValueAtTime(0.0001, at);
      g.gain.exponentialRampToValueAtTime(0.15, at + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, at + 0.3);
      o.connect(g).connect(audio!.destination);
      o.start(at);
      o.stop(at + 0.32);
    });
  } catch { /* no sound where audio is unavailable */ }
}
doc.addEventListener('visibilitychange', () => { if (!doc.hidden && opened && titled) { titled = false; cue(); } });
const isMobile = () => W.matchMedia?.(MOBILE_QUERY).matches;
const el = (tag: string, cls: string, html = '') => { const e = doc.createElement(tag); e.className = cls; e.innerHTML = html; return e; };

/** A glob where * matches anything, against the page path. */
const globMatch = (g: string, path: string) => new RegExp(`^${g.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(path);

function teardown() {
  clearTimeout(timer);
  chat?.destroy();
  host?.remove();
  core = host = launcher = teaser = chat = loading = null;
  opened = false;
}

async function boot(o: BootOptions = {}): Promise<void> {
  teardown();
  opts = { ...opts, ...o };
  if (o.user) identity = o.user;
  const botId = opts.botId;
  if (!botId) throw new Error('ServiceChat.boot: botId is required');
  const base = (opts.baseUrl || (script?.src ?? '').replace(/\/static\/widget\/loader\.js.*$/, '')).replace(/\/$/, '');
  const preview = opts.previewToken ? `?preview=${encodeURIComponent(opts.previewToken)}` : '';
  // Only the latest boot draws (the script tag's own boot and a page's boot() can overlap).
  const gen = ++boots;
  const res = await fetch(`${base}/widget/v1/bots/${encodeURIComponent(botId)}/config${preview}`);
  if (!res.ok) { console.warn(`ServiceChat: bot ${botId} is not available (${res.status})`); return; }
  const cfg: WidgetConfig = await res.json();
  if (gen !== boots) return;
  const a = cfg.appearance;
  // Boot options override the published appearance (bot-config.md: "Pages can override some appearance settings").
  if (opts.layout) a.layout = opts.layout;
  Object.assign(a.launcher, opts.launcher);
  Object.assign(a.theme, opts.theme);
  if (opts.zIndex !== undefined) a.zIndex = opts.zIndex;
  let target: Element | null = null;
  if (a.layout === 'inline') {
    target = typeof opts.target === 'string' ? doc.querySelector(opts.target) : opts.target ?? null;
    if (!target) { console.warn('ServiceChat: no data-target'); a.layout = 'panel'; }
  }
  host = doc.createElement('div');
  host.setAttribute('data-service-chat', botId);
  if (target) host.style.cssText = 'display:block;height:100%;width:100%';
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML = `<style>${css(cfg)}</style>`;
  (target ?? doc.body).appendChild(host);
  const language = loadLanguage(cfg, (f) => (script?.src ? new URL(f, script.src).href : `${base}/static/widget/${f}`));
  core = {
    botId, base, cfg, root, identity, tools, previewToken: opts.previewToken, lang: language.lang, dir: language.dir, strings: {},
    isOpen: () => opened,
    close: () => setOpen(false),
    emit,
  };
  const c = core;
  stringsReady = language.strings.then((s) => { c.strings = s; if (core === c) mark(opened); });
  const l = a.launcher;
  if (!target && l.type !== 'none') {
    launcher = el('button', `l ${l.type}${l.hideOnMobile ? ' hm' : ''}`);
    if (l.type === 'tab') launcher.textContent = l.label;
    mark(false);
    launcher.onclick = () => toggle();
    // A pointer over the launcher or keyboard focus on it: the visitor is about to open, so chat.js is fetched and
    // evaluated now (nothing is drawn or connected until the click). Pages where nobody reaches for it never load it.
    launcher.onpointerenter = launcher.onfocus = () => void chatModules().catch(() => {});
    root.appendChild(launcher);
  }
  if (!target) scheduleTeaser(cfg, root);
  if (target || opts.open || wantOpen) void setOpen(true);
  emit('ready', { botId });
}

function scheduleTeaser(cfg: WidgetConfig, root: ShadowRoot) {
  const g = cfg.greeting;
  const path = location.pathname;
  const key = `sc:greet:${cfg.botId}`;
  if (!g.enabled || (isMobile() && !g.mobile)) return;
  if (g.pages.include.length && !g.pages.include.some((p) => globMatch(p, path))) return;
  if (g.pages.exclude.some((p) => globMatch(p, path))) return;
  // A visitor who has opened the chat knows it is there: no more greetings for them, whatever the frequency.
  if (store(localStorage, `sc:chatted:${cfg.botId}`)) return;
  if (g.frequency === 'session' && store(sessionStorage, key)) return;
  if (g.frequency === 'visitor' && store(localStorage, key)) return;
  timer = W.setTimeout(() => {
    if (opened || wantOpen || store(localStorage, `sc:chatted:${cfg.botId}`)) return;
    // The text is a button too, so the keyboard can open the chat from it.
    teaser = el('div', 't', `<button class="tx" aria-label="Close">×</button><button class="p"></button>`);
    teaser.querySelector('.p')!.textContent = g.text;
    teaser.onclick = (e) => {
      const closing = (e.target as Element).closest('.tx');
      // "visitor": shown until the visitor closes it (or opens the chat from it).
      if (g.frequency === 'visitor') store(localStorage, key, '1');
      hideTeaser();
      if (!closing) void setOpen(true);
    };
    root.appendChild(teaser);
    if (g.frequency === 'session') store(sessionStorage, key, '1');
  }, g.delayMs);
}

/**
 * The launcher's state: aria-expanded, and for the bubble ("l bubble") its icon and a name saying what it does;
 * a tab keeps its visible label as its name (WCAG 2.5.3).
 */
function mark(open: boolean) {
  if (!launcher) return;
  launcher.setAttribute('aria-expanded', open + '');
  launcher.classList.toggle('on', open);
  if (launcher.className[2] == 'b') {
    const pic = open ? '' : facePicture(core!);
    launcher.innerHTML = open ? ICON_X : pic || ICON_CHAT;
    // A picture that cannot be loaded (an old preset name, a deleted face) leaves the chat icon.
    launcher.querySelector('img')?.addEventListener('error', () => { if (launcher) launcher.innerHTML = ICON_CHAT; });
    const key = open ? 'header.close' : 'launcher.open';
    launcher.ariaLabel = (core!.cfg.texts.strings[key] ?? core!.strings[key] ?? (open ? 'Close chat' : 'Open chat')) + (unread ? ` (${unread})` : '');
  }
}

/**
 * launcher.icon face or avatar: the face's picture (a catalogue face drawn by the build in its preset, or a
 * custom face's photo); face breathes gently (CSS, still under reduced motion). Empty: no picture.
 */
function facePicture(c: Core): string {
  const f = c.cfg.face, k = f?.skin, i = c.cfg.appearance.launcher.icon, e = encodeURIComponent;
  if (!k || i == 'chat') return '';
  // Pictures are prebuilt per preset: a face in a colour of its own (config.color, or the accent preset) shows the
  // preset picture nearest that colour.
  const own = f!.config?.color || (f!.config?.preset == 'accent' ? c.cfg.appearance.theme.accent : '');
  const preset = own ? nearestPreset(String(own)) : String(f!.config?.preset ?? 'cyan');
  // crossorigin: the face engine loads the same photo as a WebGL texture (CORS), and the two share the cache entry.
  return `<img class="fa${i == 'face' ? ' br' : ''}" src="${c.base}/${k.kind == 'custom' ? `api/v1/faces/${e(k.assetId)}/image` : `static/widget/faces/${e(k.id)}-${e(preset)}.svg`}" crossorigin="anonymous" alt="">`;
}

/** The preset whose main colour is nearest a #rrggbb colour. */
function nearestPreset(hex: string): string {
  const rgb = (h: string) => [0, 2, 4].map((i) => parseInt(h.replace('#', '').slice(i, i + 2), 16) || 0);
  const [r, g, b] = rgb(hex);
  let best = 'cyan', d0 = Infinity;
  for (const [name, { main }] of Object.entries(PRESETS)) {
    const [r2, g2, b2] = rgb(main), d = (r - r2) ** 2 + (g - g2) ** 2 + (b - b2) ** 2;
    if (d < d0) { d0 = d; best = name; }
  }
  return best;
}

function hideTeaser() { teaser?.remove(); teaser = null; }

/** Fetches and evaluates a bundle next to the loader (an ES module) once, without drawing anything. */
function bundle(name: string, file = name + '.js'): Promise<any> {
  // The build names bundles by their content (chat.<hash>.js, cached for a year); this loader's own URL stays put.
  // A loader cached from before a deploy may name a file that is gone: then the plain name (chat.js) is loaded.
  const url = (f: string) => (script?.src ? new URL(f, script.src).href : `${core!.base}/static/widget/${f}`);
  return modules[name] ??= import(/* @vite-ignore */ url(file)).catch(() => import(/* @vite-ignore */ url(name + '.js'))).catch((err) => {
    delete modules[name];
    throw err;
  });
}

/**
 * chat.js and, fetched beside it (not after it), the optional parts this bot's config turns on: the voice UI,
 * spoken replies, the camera. A part that cannot be loaded leaves the chat without it.
 */
function chatModules(): Promise<[any, Record<string, unknown>]> {
  const c = core!.cfg, names = typeof __CHAT_PARTS__ == 'object' ? __CHAT_PARTS__ : {};
  const on = { voice: c.voice?.enabled, speak: c.appearance.face?.textReplies == 'speak', camera: c.webcam?.enabled };
  const parts = Object.entries(on).filter(([, v]) => v).map(([k]) => bundle(`chat-${k}`, names[k]).then((m) => [k, m], (err) => console.error(`ServiceChat: could not load chat-${k}`, err)));
  return Promise.all([bundle('chat', typeof __CHAT_FILE__ == 'string' ? __CHAT_FILE__ : undefined), Promise.all(parts).then((ps) => Object.fromEntries(ps.filter(Boolean) as any))]);
}

/** Mounts the chat UI (loading chat.js and its parts first if needed). */
function loadChat(): Promise<ChatHandle | null> {
  const c = core;
  if (!c) return Promise.resolve(null);
  return loading ??= Promise.all([chatModules(), stringsReady]).then(([[m, parts]]) => (core === c ? (chat = m.mount(c, parts) as ChatHandle) : null)).catch((err) => {
    console.error('ServiceChat: could not load the chat', err);
    loading = null;
    return null;
  });
}

async function setOpen(open: boolean): Promise<void> {
  wantOpen = open;
  if (!core) return;
  if (!open && core.cfg.appearance.layout === 'inline') return;
  if (open) hideTeaser();
  const handle = open ? await loadChat() : chat;
  if (!handle || opened === open) return;
  opened = open;
  const focused = doc.activeElement === host;
  // Where the keyboard was before opening (the page's own "Help" button when the launcher is off).
  if (open && !focused) returnTo = doc.activeElement as HTMLElement | null;
  handle.setOpen(open);
  if (open) { unread = 0; titled = titled && doc.hidden; cue(); store(localStorage, `sc:chatted:${core.botId}`, '1'); } else mark(open);
  // Closed from inside the chat (Escape, the close button): the keyboard goes back to the launcher when it is
  // shown, else where it was before opening; never to the page's start.
  if (!open && focused) (launcher?.getClientRects().length ? launcher : returnTo?.isConnected ? returnTo : null)?.focus();
  emit(open ? 'open' : 'close');
}

const toggle = () => setOpen(!(wantOpen || opened));

function css(cfg: WidgetConfig): string {
  const a = cfg.appearance;
  const l = a.launcher;
  const [v, h] = l.position.split('-');
  const t = a.theme;
  // A tab sits on an edge (d px from it); the teaser sits beside it. Left and right tabs read top to bottom.
  const tabAt = (d: number) => l.edge === 'bottom'
    ? `bottom:${d}px;${l.align === 'center' ? 'left:50%;transform:translateX(-50%)' : `${l.align === 'start' ? 'left' : 'right'}:${l.offset.x}px`}`
    : `${l.edge}:${d}px;${l.align === 'center' ? 'top:50%;transform:translateY(-50%)' : `${l.align === 'start' ? 'top' : 'bottom'}:${l.offset.y}px`}`;
  const teaserAt = l.type === 'tab' ? tabAt(56) : `${v}:${l.offset.y + (l.type === 'bubble' ? l.size + 12 : 8)}px;${h}:${l.offset.x}px`;
  return `:host{all:initial}
*{box-sizing:border-box;font-family:${FONTS[t.font] ?? FONTS.system}}
.l{position:fixed;z-index:${a.zIndex};border:0;cursor:pointer;background:${accentColours(t.accent).fill};color:${accentColours(t.accent).on};box-shadow:0 4px 16px rgba(0,0,0,.25);display:flex;align-items:center;justify-content:center}
.bubble{${v}:${l.offset.y}px;${h}:${l.offset.x}px;width:${l.size}px;height:${l.size}px;border-radius:50%}
.tab{${tabAt(0)};writing-mode:${l.edge === 'bottom' ? 'initial' : 'vertical-rl'};padding:12px 10px;font-size:14px;font-weight:600;border-radius:${t.radius / 2}px}
.t{position:fixed;z-index:${a.zIndex};${teaserAt};max-width:260px;color-scheme:${t.mode === 'auto' ? 'light dark' : t.mode};background:light-dark(#fff,#1f2937);color:light-dark(#111,#f9fafb);padding:12px 28px 12px 14px;border-radius:${t.radius}px;box-shadow:0 6px 24px rgba(0,0,0,.2);cursor:pointer;font-size:14px;line-height:1.4}
.p{all:unset;cursor:pointer}.p:focus-visible,.tx:focus-visible{outline:2px solid}.tx{position:absolute;top:4px;right:6px;border:0;background:none;font-size:16px;cursor:pointer;color:inherit;opacity:.75}
.n{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;padding:0 5px;border-radius:10px;background:#b91c1c;color:#fff;font:700 12px/20px system-ui,sans-serif;text-align:center}
@media ${MOBILE_QUERY}{.hm{display:none}}
.fa{width:100%;height:100%;border-radius:50%;pointer-events:none;object-fit:cover}
.br{animation:br 4.2s ease-in-out infinite}@keyframes br{50%{transform:translateY(-1.5%) scale(1.035)}}
@media (prefers-reduced-motion:reduce){.br{animation:none}}`;
}

/** The face-photo bundle's content-hashed name, set by the build. */
declare const __FACE_PHOTO_FILE__: string | undefined;

const api = {
  boot,
  open: () => setOpen(true),
  close: () => setOpen(false),
  toggle,
  isOpen: () => opened,
  identify(user: Identity) {
    identity = { ...user };
    if (core) core.identity = identity;
    chat?.identityChanged();
  },
  registerTool(t: PageTool) {
    if (!t?.name || typeof t.handler !== 'function') throw new Error('ServiceChat.registerTool: name and handler required');
    tools.set(t.name, t);
    chat?.toolsChanged();
  },
  unregisterTool(name: string) { if (tools.delete(name)) chat?.toolsChanged(); },
  // Voice opens the chat first (it lives there); events come as on('voice').
  startVoice: (o?: VoiceStartOptions) => setOpen(true).then(() => chat?.startVoice(o)),
  stopVoice: () => chat?.stopVoice(),
  // A face from a photo (docs/faces.md): its own bundle, and MediaPipe from this server, loaded on first call only.
  skinFromPhoto(image: unknown, o: { name?: string } = {}) {
    const base = (opts.baseUrl || (script?.src ?? '').replace(/\/static\/widget\/loader\.js.*$/, '')).replace(/\/$/, '');
    const load = (f: string) => import(/* @vite-ignore */ `${base}/static/widget/${f}`);
    const file = typeof __FACE_PHOTO_FILE__ == 'string' ? __FACE_PHOTO_FILE__ : 'face-photo.js';
    return load(file).catch(() => load('face-photo.js')).then((m) => m.skinFromPhoto(image, { base, name: o.name }));
  },
  on(e: ChatEvent, cb: (d?: unknown) => void) { (listeners[e] ??= new Set()).add(cb); },
  off(e: ChatEvent, cb: (d?: unknown) => void) { listeners[e]?.delete(cb); },
};

// Calls queued before the loader ran: (window.ServiceChat ||= { q: [] }).q.push(['boot', {...}]). After it
// ran, q.push calls at once, so the same page code works whichever script runs first.
const run = ([m, ...args]: unknown[]) => (api as any)[m as string]?.(...args);
const queued: unknown[][] = Array.isArray(W.ServiceChat?.q) ? W.ServiceChat.q : [];
W.ServiceChat = { ...api, q: { push: run } };
queued.forEach(run);
const ds = script?.dataset;
if (ds?.botId && !opts.botId) {
  void boot({ botId: ds.botId, layout: ds.layout as BootOptions['layout'], target: ds.target, previewToken: ds.previewToken }).catch((err) => console.error('ServiceChat:', err));
}
