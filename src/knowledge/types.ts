import { z } from 'zod';
import type { Doc } from '../store/types.js';
import type { DocumentType } from '../documents/parse.js';

/** Source kinds of the spec: text, a page, a sitemap, a site to crawl ('crawl'), an uploaded file. */
export type SourceKind = 'text' | 'page' | 'sitemap' | 'crawl' | 'file';
export type SourceStatus = 'queued' | 'indexing' | 'ready' | 'failed';

export interface SourceSettings {
  /** Pages fetched at most (sitemap and crawl). */
  maxPages: number;
  /** Links followed from the start page (crawl). */
  maxDepth: number;
}

export const SETTINGS_DEFAULTS: Readonly<SourceSettings> = Object.freeze({ maxPages: 200, maxDepth: 3 });
export const LIMITS = Object.freeze({ maxPages: 2000, maxDepth: 10, textChars: 500_000 });

export interface KnowledgeSource extends Doc {
  kind: SourceKind;
  name: string;
  url: string | null;
  text?: string;
  file?: { fileId: string; filename: string; contentType: string; size: number } | null;
  settings: SourceSettings;
  status: SourceStatus;
  progress: { done: number; total: number };
  documentCount: number;
  chunkCount: number;
  error: string | null;
  /** Bumped by every (re)index run; documents not seen by the latest run are removed. */
  generation: number;
  createdAt: number;
  updatedAt: number;
  indexedAt: number | null;
}

export interface KnowledgeDocument extends Doc {
  sourceId: string;
  /** Page URL, or null for text and files. */
  url: string | null;
  title: string;
  type: DocumentType;
  bytes: number;
  chunkCount: number;
  /** Vector collection holding this document's vectors, if any were made. */
  vectorCollection: string | null;
  /** Why this document has no vectors although the workspace has an embedding connection (it is lexical only). */
  vectorError?: string;
  /** The embedder whose vectors it has (src/knowledge/embeddings.ts `key`): unchanged passages keep them on a reindex. */
  embedder?: string | null;
  generation: number;
  indexedAt: number;
}

export interface KnowledgeChunk extends Doc {
  sourceId: string;
  documentId: string;
  index: number;
  heading: string;
  title: string;
  url: string | null;
  text: string;
}

export type JobItemKind = 'text' | 'file' | 'page' | 'sitemap';
export interface JobItem { kind: JobItemKind; ref: string; depth: number }

/** A durable ingestion run: the queue is saved after every step, so a restarted server resumes it. */
export interface IngestJob extends Doc {
  sourceId: string;
  generation: number;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  queue: JobItem[];
  /** Every URL queued or done in this run (dedupes crawl links and sitemap entries). */
  seen: string[];
  pagesDone: number;
  pagesFailed: number;
  /** Sitemaps that could not be read (absent in jobs stored by earlier versions). */
  sitemapsFailed?: number;
  errors: Array<{ ref: string; message: string }>;
  createdAt: number;
  updatedAt: number;
}

export interface KnowledgeGap extends Doc {
  normalized: string;
  question: string;
  count: number;
  botIds: string[];
  firstAskedAt: number;
  lastAskedAt: number;
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);
const settingsInput = z.object({
  maxPages: z.number().int().min(1).max(LIMITS.maxPages).optional(),
  maxDepth: z.number().int().min(0).max(LIMITS.maxDepth).optional(),
}).strict();
const name = z.string().trim().min(1).max(200);

export const CreateSourceBody = z.discriminatedUnion('kind', [
  // Without a name, a text source is named by its first heading or line (parse.ts titleOfText).
  z.object({ kind: z.literal('text'), name: name.optional(), text: z.string().min(1).max(LIMITS.textChars) }).strict(),
  z.object({ kind: z.literal('page'), name: name.optional(), url: httpUrl }).strict(),
  z.object({ kind: z.literal('sitemap'), name: name.optional(), url: httpUrl, settings: settingsInput.optional() }).strict(),
  z.object({ kind: z.literal('crawl'), name: name.optional(), url: httpUrl, settings: settingsInput.optional() }).strict(),
]);
export type CreateSourceInput = z.infer<typeof CreateSourceBody>;

export const PatchSourceBody = z.object({
  name: name.optional(),
  url: httpUrl.optional(),
  text: z.string().min(1).max(LIMITS.textChars).optional(),
  settings: settingsInput.optional(),
}).strict();
export type PatchSourceInput = z.infer<typeof PatchSourceBody>;

export const SearchBody = z.object({
  query: z.string().trim().min(1).max(2000),
  sourceIds: z.array(z.string().max(64)).max(200).optional(),
  topK: z.number().int().min(1).max(20).default(5),
}).strict();
