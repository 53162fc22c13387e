import { provided, type AppContext } from '../app/context.js';
import type { WorkspaceDeletion } from '../auth/workspace-cleanup.js';
import { invalid, notFound } from '../kernel/errors.js';
import { createGuardedClient, type GuardedClient } from '../security/guarded-client.js';
import { openEmbeddedLexical, type LexicalIndex } from '../store/lexical-embedded.js';
import { newId } from '../store/ids.js';
import { HostLimiter } from './host-limiter.js';
import { knowledgeCollections } from './collections.js';
import { removeDocuments } from './indexer.js';
import { IngestRunner } from './jobs.js';
import { replicateLexical, storeIsShared } from './lexical-replica.js';
import { sniffDocumentType, UnsupportedDocumentError } from '../documents/parse.js';
import { hybridSearch, type SearchOptions, type SearchOutcome } from './search.js';
import { QUERY_CACHE_BYTES, QueryEmbeddings } from './query-embeddings.js';
import { titleOfText } from '../documents/parse.js';
import { SETTINGS_DEFAULTS, type CreateSourceInput, type KnowledgeDocument, type KnowledgeSource, type PatchSourceInput } from './types.js';

/** The knowledge area for one app: sources, their ingestion, and search. */
export class KnowledgeService {
  readonly lexical: LexicalIndex;
  readonly client: GuardedClient;
  readonly runner: IngestRunner;
  /** Search queries' vectors, kept (docs/knowledge.md, "Search"). */
  private readonly queries: QueryEmbeddings;

  constructor(private app: AppContext, deletion: WorkspaceDeletion) {
    // The lexical index is a file beside the embedded store; with MongoDB, each machine's file is a replica of
    // the store's chunk records, kept up to date across machines (lexical-replica.ts).
    const local = openEmbeddedLexical(app.config.dataDir, {
      onMigrationError: (err) => app.log.warn({ err }, 'lexical index: older passages keep their heading in the title field until the next start or a reindex'),
    });
    this.lexical = storeIsShared(app) ? replicateLexical(app, local) : local;
    this.queries = new QueryEmbeddings(app, QUERY_CACHE_BYTES);
    this.client = createGuardedClient({ allowPrivateNetwork: app.config.allowPrivateNetwork, clock: app.clock });
    this.runner = new IngestRunner(app, this.lexical, this.client, new HostLimiter(app.clock));
    // Deleting a workspace also removes its derived indexes (the records themselves go with the store).
    deletion.onDelete((workspaceId) => this.dropIndexes(workspaceId));
  }

  /** At shutdown (the composition root calls it): ingestion stops, then the client and the lexical index close. */
  async close(): Promise<void> {
    await this.runner.close();
    await this.client.close();
    await this.lexical.close();
  }

  private get c() { return knowledgeCollections(this.app); }

  /** A deleted workspace's vectors and lexical entries (with MongoDB, the other machines drop theirs too). */
  private async dropIndexes(workspaceId: string): Promise<void> {
    const docs = await this.c.documents.find({ workspaceId });
    for (const name of new Set(docs.map((d) => d.vectorCollection).filter((n): n is string => !!n))) {
      await this.app.vectors.deleteByFilter(name, { workspaceId });
    }
    await this.lexical.deleteWhere({ workspaceId });
  }

  async create(workspaceId: string, input: CreateSourceInput): Promise<KnowledgeSource> {
    const url = 'url' in input ? input.url : null;
    const settings = { ...SETTINGS_DEFAULTS, ...('settings' in input ? input.settings : {}) };
    const name = input.name ?? (url ? new URL(url).host + new URL(url).pathname.replace(/\/$/, '') : titleOfText('text' in input ? input.text : '') || 'Text');
    return this.insertAndStart(this.baseRecord(workspaceId, input.kind, name, url, settings, input.kind === 'text' ? { text: input.text } : {}));
  }

  /** An uploaded file: magic bytes decide the type; the declared type and name only tell text kinds apart. */
  async upload(workspaceId: string, data: Buffer, contentType: string, filename: string, name?: string): Promise<KnowledgeSource> {
    if (data.length === 0) throw invalid('file: empty body');
    if (data.length > this.app.config.uploadLimitBytes) throw invalid(`file: larger than the ${this.app.config.uploadLimitBytes} byte limit`);
    let type;
    try { type = sniffDocumentType(data, contentType, filename); } catch (err) {
      if (err instanceof UnsupportedDocumentError) throw invalid(err.message);
      throw err;
    }
    const fileId = newId('kfile');
    const mime = { pdf: 'application/pdf', html: 'text/html', markdown: 'text/markdown', text: 'text/plain' }[type];
    await this.app.store.files.put(fileId, data, { workspaceId, contentType: mime, size: data.length, filename });
    const record = this.baseRecord(workspaceId, 'file', name ?? filename, null, { ...SETTINGS_DEFAULTS }, {
      file: { fileId, filename, contentType: mime, size: data.length },
    });
    return this.insertAndStart(record);
  }

  private baseRecord(workspaceId: string, kind: KnowledgeSource['kind'], name: string, url: string | null, settings: KnowledgeSource['settings'], extra: Partial<KnowledgeSource>): KnowledgeSource {
    const now = this.app.clock.now();
    return {
      _id: newId('ks'), workspaceId, kind, name: name.slice(0, 200), url, settings, status: 'queued', progress: { done: 0, total: 0 },
      documentCount: 0, chunkCount: 0, error: null, generation: 0, createdAt: now, updatedAt: now, indexedAt: null, ...extra,
    };
  }

  private async insertAndStart(record: KnowledgeSource): Promise<KnowledgeSource> {
    await this.c.sources.insertOne(record);
    return this.runner.start(record);
  }

  async list(workspaceId: string): Promise<KnowledgeSource[]> {
    return this.c.sources.find({ workspaceId });
  }

  async get(workspaceId: string, id: string): Promise<KnowledgeSource> {
    const s = await this.c.sources.findById(workspaceId, id);
    if (!s) throw notFound('knowledge source');
    return s;
  }

  /** Name and settings change in place; a new URL or text (the content address) starts a new indexing run. */
  async patch(workspaceId: string, id: string, input: PatchSourceInput): Promise<KnowledgeSource> {
    const s = await this.get(workspaceId, id);
    if (input.url !== undefined && !['page', 'sitemap', 'crawl'].includes(s.kind)) throw invalid(`url: a ${s.kind} source has no URL`);
    if (input.text !== undefined && s.kind !== 'text') throw invalid(`text: only a text source has text`);
    const $set: Record<string, unknown> = { updatedAt: this.app.clock.now() };
    if (input.name !== undefined) $set.name = input.name;
    if (input.url !== undefined) $set.url = input.url;
    if (input.text !== undefined) $set.text = input.text;
    if (input.settings) $set.settings = { ...s.settings, ...input.settings };
    const updated = (await this.c.sources.updateOne({ workspaceId, _id: id }, { $set }))!;
    // A text source is cited by its name: renaming it indexes it again, so visitors see the new name.
    const moved = (input.url !== undefined && input.url !== s.url) || (input.text !== undefined && input.text !== s.text)
      || (s.kind === 'text' && input.name !== undefined && input.name !== s.name);
    return moved ? this.runner.start(updated) : updated;
  }

  async reindex(workspaceId: string, id: string): Promise<KnowledgeSource> {
    return this.runner.start(await this.get(workspaceId, id));
  }

  /** Removes the source with its documents, chunks, vectors, lexical entries, uploaded file and jobs. */
  async remove(workspaceId: string, id: string): Promise<void> {
    const s = await this.get(workspaceId, id);
    await this.runner.cancel(workspaceId, id);
    await removeDocuments(this.app, this.lexical, s);
    await this.lexical.deleteWhere({ workspaceId, sourceId: id });
    if (s.file) await this.app.store.files.delete(workspaceId, s.file.fileId);
    await this.app.store.collection('knowledge_jobs').deleteMany({ workspaceId, sourceId: id });
    await this.c.sources.deleteOne({ workspaceId, _id: id });
  }

  async documents(workspaceId: string, id: string): Promise<KnowledgeDocument[]> {
    await this.get(workspaceId, id);
    return this.c.documents.find({ workspaceId, sourceId: id }, { sort: [['url', 1], ['title', 1]] });
  }

  async search(workspaceId: string, query: string, opts: SearchOptions): Promise<SearchOutcome> {
    return hybridSearch(this.app, this.lexical, this.queries, workspaceId, query, opts);
  }
}

export const knowledge = provided<KnowledgeService>('knowledge');
