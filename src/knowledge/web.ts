import { XMLParser } from 'fast-xml-parser';
import robotsParserCjs from 'robots-parser';
import type { GuardedClient } from '../security/guarded-client.js';
import type { DocumentType } from '../documents/parse.js';

/** Fetching for page, sitemap and crawl sources. Every request goes through the guarded client. */
export const USER_AGENT = 'ServiceChatKnowledgeBot/1';
export const PAGE_MAX_BYTES = 10 * 1024 * 1024;

export class FetchFailedError extends Error {}

export interface FetchedPage {
  bytes: Buffer;
  contentType: string;
  /** After redirects. */
  url: string;
}

export async function fetchPage(client: GuardedClient, url: string, signal?: AbortSignal): Promise<FetchedPage> {
  const res = await client.request(url, {
    headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,text/markdown,text/plain,application/pdf,application/xml;q=0.9,*/*;q=0.5' },
    maxResponseBytes: PAGE_MAX_BYTES, failOnTooLarge: true, timeoutMs: 20_000, signal,
  });
  if (res.status < 200 || res.status > 299) throw new FetchFailedError(`${url} answered HTTP ${res.status}`);
  const contentType = String([res.headers['content-type']].flat()[0] ?? '');
  return { bytes: res.body, contentType, url: res.url };
}

/** The document type of a fetched page: by its bytes (PDF) and then by Content-Type. */
export function pageType(page: FetchedPage): DocumentType | null {
  if (page.bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  const t = page.contentType.split(';')[0].trim().toLowerCase();
  if (t === 'text/html' || t === 'application/xhtml+xml' || t === '') return 'html';
  if (t === 'text/markdown' || t === 'text/x-markdown') return 'markdown';
  if (t === 'text/plain') return 'text';
  return null;
}

// A CommonJS module whose typings declare an ES default export; at run time the import is the function.
const robotsParser = robotsParserCjs as unknown as (url: string, text: string) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
};

const xml = new XMLParser({ ignoreAttributes: true, isArray: (name) => name === 'url' || name === 'sitemap' });

/** A sitemap or sitemap index: the pages it lists and the nested sitemaps to read. */
export function parseSitemap(body: string): { pages: string[]; sitemaps: string[] } {
  const doc = xml.parse(body) as { urlset?: { url?: Array<{ loc?: unknown }> }; sitemapindex?: { sitemap?: Array<{ loc?: unknown }> } };
  const locs = (list?: Array<{ loc?: unknown }>) => (list ?? []).map((e) => String(e.loc ?? '').trim()).filter((u) => /^https?:\/\//i.test(u));
  return { pages: locs(doc.urlset?.url), sitemaps: locs(doc.sitemapindex?.sitemap) };
}

export interface Robots {
  isAllowed(url: string): boolean;
  /** The Crawl-delay for our user agent (or *), in ms; 0 without one. */
  crawlDelayMs: number;
}

/** robots.txt of an origin; a missing or unreadable file allows everything (the convention crawlers follow). */
export async function loadRobots(client: GuardedClient, origin: string, signal?: AbortSignal): Promise<Robots> {
  const robotsUrl = `${origin}/robots.txt`;
  let text = '';
  try {
    const res = await client.request(robotsUrl, { headers: { 'user-agent': USER_AGENT }, maxResponseBytes: 512 * 1024, timeoutMs: 10_000, signal });
    if (res.status >= 200 && res.status < 300) text = res.body.toString('utf8');
  } catch { /* unreachable robots.txt: allow */ }
  const parsed = robotsParser(robotsUrl, text);
  const delaySeconds = Number(parsed.getCrawlDelay(USER_AGENT) ?? 0);
  return { isAllowed: (url) => parsed.isAllowed(url, USER_AGENT) !== false, crawlDelayMs: Number.isFinite(delaySeconds) && delaySeconds > 0 ? Math.round(delaySeconds * 1000) : 0 };
}

/** Crawls stay on the start page's site: same host, ignoring a leading www. */
export function sameSite(a: string, b: string): boolean {
  const host = (u: string) => new URL(u).hostname.replace(/^www\./, '');
  try { return host(a) === host(b); } catch { return false; }
}

/** A canonical form for dedupe: no fragment, no trailing slash difference on the path root. */
export function canonicalUrl(u: string): string {
  const url = new URL(u);
  url.hash = '';
  return url.href;
}
