/** Shapes of the knowledge API answers the pages read (the server's OpenAPI document has them all). */
export type SourceKind = 'text' | 'page' | 'sitemap' | 'crawl' | 'file';
export interface Source {
  id: string; kind: SourceKind; name: string; url: string | null; settings: { maxPages?: number; maxDepth?: number } | null;
  status: 'queued' | 'indexing' | 'ready' | 'failed'; progress: { done: number; total: number };
  documentCount: number; chunkCount: number; error: string | null;
  file: { filename: string; contentType: string; size: number } | null; textChars?: number;
  createdAt: number; updatedAt: number; indexedAt: number | null;
}
export interface KDocument { id: string; sourceId: string; url: string | null; title: string; type: string; bytes: number; chunkCount: number; indexedAt: number }
export interface SearchAnswer {
  mode: 'lexical' | 'vector' | 'hybrid'; relevant: boolean; warning?: string;
  results: Array<{ excerpt: string; title: string; url: string | null; score: number; sourceId: string; documentId: string }>;
}
export interface Gap { question: string; count: number; firstAskedAt: number; lastAskedAt: number; botIds: string[] }

export const KIND_TEXT: Record<SourceKind, string> = { page: 'Web page', sitemap: 'Sitemap', crawl: 'Website', text: 'Text', file: 'File' };
/** What to do when a source of this kind failed to index. */
export const FIX: Record<SourceKind, string> = {
  page: 'Check that the address opens in a browser, then press Reindex.',
  sitemap: 'Check that the sitemap address opens in a browser and lists pages, then press Reindex.',
  crawl: 'Check that the start page opens in a browser, then press Reindex.',
  text: 'Edit the text if needed, then press Reindex.',
  file: 'Press Reindex to try again, or Delete this source and add a readable copy (PDF, Markdown, text or HTML).',
};
export const busy = (s: Source) => s.status === 'queued' || s.status === 'indexing';
