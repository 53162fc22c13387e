/**
 * What the embed snippets need (GET /bots/{id}/embed): the loader script URL, the bot id, and ready-to-paste
 * HTML for each layout. The loader reads its own script tag: data-bot-id, and optionally data-layout and
 * data-target (a CSS selector of the element the inline layout renders into).
 */
import type { BotConfig } from './config/index.js';

export const LAYOUTS = ['panel', 'drawer', 'floating', 'inline'] as const;
export type Layout = (typeof LAYOUTS)[number];

export interface EmbedInfo {
  botId: string;
  scriptUrl: string;
  /** The layout the published config (or the draft, before any publish) uses. */
  layout: Layout;
  published: boolean;
  snippets: Record<Layout, string>;
}

/** Bot ids are [a-z0-9_]; escaping still guards against ids or URLs from elsewhere. */
const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function snippet(scriptUrl: string, botId: string, layout: Layout, isDefault: boolean): string {
  const layoutAttr = isDefault ? '' : ` data-layout="${layout}"`;
  const tag = `<script src="${attr(scriptUrl)}" data-bot-id="${attr(botId)}"${layoutAttr}`;
  if (layout !== 'inline') return `${tag} async></script>`;
  const target = `chat-agent-${botId}`;
  return `<div id="${attr(target)}" style="height:600px"></div>\n${tag} data-target="#${attr(target)}" async></script>`;
}

export function embedInfo(publicUrl: string, botId: string, config: BotConfig, published: boolean): EmbedInfo {
  const scriptUrl = `${publicUrl}/static/widget/loader.js`;
  const layout = config.appearance.layout;
  const snippets = Object.fromEntries(LAYOUTS.map((l) => [l, snippet(scriptUrl, botId, l, l === layout)])) as Record<Layout, string>;
  return { botId, scriptUrl, layout, published, snippets };
}
