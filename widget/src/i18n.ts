/**
 * The interface language: the bot's `identity.language` when its policy is fixed, otherwise the visitor's
 * browser languages, then the bot's language, then English. English is built into chat.js; every other
 * language is a small JSON file (widget/i18n/<lang>.json, content-hashed by the build) fetched once, when the
 * widget boots, so the launcher's own label is translated too. `texts.strings` overrides any string.
 */
import type { WidgetConfig } from './types.js';

declare const __I18N__: Record<string, string> | undefined;

const FILES: Record<string, string> = typeof __I18N__ == 'object' ? __I18N__ : {};
const RTL = /^(ar|he|fa|ur)$/;

export interface Language { lang: string; dir: 'ltr' | 'rtl'; strings: Promise<Record<string, string>> }

export function pickLanguage(cfg: WidgetConfig, browser: readonly string[]): string {
  const id = cfg.identity;
  const wanted = id.languagePolicy == 'fixed' ? [id.language] : [...browser, id.language];
  for (const tag of wanted) {
    const l = (tag || '').toLowerCase().split('-')[0];
    if (l == 'en' || FILES[l]) return l;
  }
  return 'en';
}

/** Starts loading the language's strings (English: none needed); a failed fetch falls back to English. */
export function loadLanguage(cfg: WidgetConfig, url: (file: string) => string): Language {
  const lang = pickLanguage(cfg, navigator.languages?.length ? navigator.languages : [navigator.language]);
  const strings = FILES[lang]
    ? fetch(url(FILES[lang])).then((r) => (r.ok ? r.json() : {})).catch(() => ({}))
    : Promise.resolve({});
  return { lang, dir: RTL.test(lang) ? 'rtl' : 'ltr', strings };
}
