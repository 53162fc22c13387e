/**
 * Shapes shared by the loader and the chat UI. Type-only: nothing here ends up in a bundle.
 * WidgetConfig is what GET /widget/v1/bots/{botId}/config answers (src/api/routes/widget.ts).
 */
export type Layout = 'panel' | 'drawer' | 'floating' | 'inline';

export interface Appearance {
  layout: Layout;
  launcher: {
    type: 'bubble' | 'tab' | 'none';
    position: 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';
    edge: 'right' | 'left' | 'bottom';
    align: 'start' | 'center' | 'end';
    label: string;
    icon: 'face' | 'chat' | 'avatar';
    offset: { x: number; y: number };
    size: number;
    hideOnMobile: boolean;
  };
  theme: { mode: 'light' | 'dark' | 'auto'; accent: string; radius: number; font: 'system' | 'inter' | 'serif' | 'mono' };
  panel: { width: number; height: number };
  drawer: { width: number; side: 'auto' | 'left' | 'right'; modal: boolean };
  floating: { width: number; height: number; composer: boolean };
  mobile: { fullscreen: boolean };
  captions: boolean;
  zIndex: number;
  face?: { show: boolean; size: 'small' | 'medium' | 'large'; textReplies: 'still' | 'mime' | 'speak' };
}

/** The bot's face (bot-config.md, face; docs/faces.md). */
export interface FaceConfig {
  config: Record<string, unknown>;
  skin: { kind: 'catalogue'; id: string } | { kind: 'custom'; assetId: string } | null;
  defaultMood: string | null;
  expressions: boolean;
}

export interface WidgetConfig {
  botId: string;
  status: string;
  identity: { agentName: string; role: string; mode: 'off' | 'optional' | 'required'; language?: string; languagePolicy?: 'match_visitor' | 'fixed' };
  welcome: { message: string; suggestedPrompts: string[] };
  texts: { title: string; subtitle: string; placeholder: string; offline: string; strings: Record<string, string> };
  greeting: {
    enabled: boolean; text: string; delayMs: number; frequency: 'session' | 'visitor' | 'always';
    pages: { include: string[]; exclude: string[] }; mobile: boolean;
  };
  appearance: Appearance;
  face?: FaceConfig;
  /** Outside opening hours with behavior.hours.scope bot: the AI does not answer (the face sleeps). */
  offline?: boolean;
  uploads: { enabled: boolean; maxPerMessage: number; maxMB: number };
  /** The camera button (vision.webcam); the rest is there only when enabled. */
  webcam?: { enabled: boolean; mode?: 'per_turn' | 'continuous' | 'on_demand'; maxFps?: number; maxWidth?: number; consentText?: string; privacyUrl?: string; liveVideo?: boolean };
  behavior: {
    feedback: { thumbs: boolean; csat: boolean };
    citations: boolean;
    newConversation: boolean;
    transcriptDownload: boolean;
    poweredBy: boolean;
    /** Not in the config answer yet; the menu offers "Talk to a person" only when it is there and on. */
    handoff?: { enabled: boolean };
  };
  maxMessageChars: number;
  /** Voice (docs/widget-protocol.md, Voice): enabled only when the engine is fully set up. */
  voice?: VoiceSettings;
}

export interface VoiceSettings {
  enabled: boolean;
  mode?: 'realtime' | 'cascade' | 'hosted_agent';
  /** allowed (the default): hands-free, the page may ask for push-to-talk; only: always push-to-talk. */
  pushToTalk?: 'off' | 'allowed' | 'only';
  bargeIn?: boolean;
}

/** ServiceChat.startVoice(options). */
export interface VoiceStartOptions { mode?: 'hands_free' | 'ptt' }

/** What ServiceChat.on('voice', cb) receives: a server state, muted, or ended with why. */
export interface VoiceEvent { state: string; reason?: string }

/** What a page may pass to ServiceChat.boot(); appearance fields override the published config. */
export interface BootOptions {
  botId?: string;
  /** Server origin; by default the origin the loader script came from. */
  baseUrl?: string;
  layout?: Layout;
  /** Inline layout: the element (or a CSS selector of it) the chat renders into. */
  target?: string | Element;
  launcher?: Partial<Appearance['launcher']>;
  theme?: Partial<Appearance['theme']>;
  zIndex?: number;
  /** Open the chat as soon as it is ready. */
  open?: boolean;
  user?: Identity;
  /** A preview token (POST /api/v1/bots/{id}/preview): load and chat with the bot's draft. */
  previewToken?: string;
}

export interface Identity { userId?: string; userHash?: string; name?: string; email?: string }

export interface PageTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (type object). */
  parameters?: Record<string, unknown>;
  handler(args: Record<string, unknown>): unknown;
}

export type ChatEvent = 'open' | 'close' | 'message' | 'ready' | 'voice';

/** What the loader hands the chat UI when it loads it. */
export interface Core {
  botId: string;
  base: string;
  cfg: WidgetConfig;
  /** The shadow root everything renders into; inline: inside the target element. */
  root: ShadowRoot;
  identity: Identity;
  tools: Map<string, PageTool>;
  /** Sent with every widget request as `preview` when previewing the draft. */
  previewToken?: string;
  /** The interface language (src/i18n.ts), its direction, and its strings once loaded ({} for English). */
  lang: string;
  dir: 'ltr' | 'rtl';
  strings: Record<string, string>;
  isOpen(): boolean;
  close(): void;
  emit(event: ChatEvent, data?: unknown): void;
}

/** What chat.js gives back to the loader. */
export interface ChatHandle {
  setOpen(open: boolean): void;
  /** The page changed identity or tools: reconnect / announce again. */
  identityChanged(): void;
  toolsChanged(): void;
  startVoice(opts?: VoiceStartOptions): void;
  stopVoice(): void;
  destroy(): void;
}

declare global {
  /** Content-hashed bundle names, set by the build (esbuild define); absent, the plain names are used. */
  const __CHAT_FILE__: string | undefined;
  const __VOICE_FILE__: string | undefined;
  const __FACE_FILE__: string | undefined;
  const __MARKDOWN_FILE__: string | undefined;
  /** The optional chat parts' names by part (voice, speak, camera: chat-<part>.<hash>.js). */
  const __CHAT_PARTS__: Record<string, string> | undefined;
}
