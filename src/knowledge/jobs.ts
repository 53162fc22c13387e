import { holdClaim, type HeldClaim } from '../scale/claims.js';
import type { AppContext } from '../app/context.js';
import type { GuardedClient } from '../security/guarded-client.js';
import type { LexicalIndex } from '../store/lexical-embedded.js';
import { newId } from '../store/ids.js';
import type { HostLimiter } from './host-limiter.js';
import { COLLECTIONS, knowledgeCollections } from './collections.js';
import { failureReason } from './failure-reason.js';
import { indexDocument, removeDocuments } from './indexer.js';
import { sniffDocumentType } from '../documents/parse.js';
import type { IngestJob, JobItem, KnowledgeSource } from './types.js';
import { canonicalUrl, fetchPage, loadRobots, pageType, parseSitemap, sameSite, type Robots } from './web.js';
import { recordKnowledgeJob } from '../metrics/record.js';

/** Pages fetched at once per source (the HostLimiter also caps requests per host across sources). */
export const CRAWL_CONCURRENCY = 2;
const MAX_SITEMAP_NESTING = 5;
const MAX_ERRORS_KEPT = 20;
// Links to these are not pages; skipping them saves requests that would only fail.
const NOT_A_PAGE = /\.(png|jpe?g|gif|webp|svg|ico|css|js|mjs|json|zip|gz|tgz|mp[34]|wav|webm|woff2?|ttf|exe|dmg)$/i;

/**
 * Runs ingestion jobs. A job is a record with its queue; after every batch the record is saved, so a
 * server that stops mid-way picks the job up where it was (resumeAll at start). Re-running an item is
 * harmless: documents and chunks have derived ids and are replaced, never added twice.
 */
export class IngestRunner {
  private running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private sweeping: NodeJS.Timeout | null = null;
  private jobs;

  constructor(private app: AppContext, private lexical: LexicalIndex, private client: GuardedClient, private hosts: HostLimiter) {
    this.jobs = app.store.collection<IngestJob>(COLLECTIONS.jobs, { indexes: [{ fields: [['status', 1]] }, { fields: [['workspaceId', 1], ['sourceId', 1]] }] });
  }

  /** Starts a new run for the source (cancelling one under way) and returns without waiting for it. */
  async start(source: KnowledgeSource): Promise<KnowledgeSource> {
    await this.cancel(source.workspaceId, source._id);
    const now = this.app.clock.now();
    const { sources } = knowledgeCollections(this.app);
    const updated = await sources.updateOne({ workspaceId: source.workspaceId, _id: source._id }, {
      $inc: { generation: 1 }, $set: { status: 'queued', error: null, progress: { done: 0, total: 0 }, updatedAt: now },
    });
    if (!updated) throw new Error(`source ${source._id} vanished`);
    const first = firstItem(updated);
    const job: IngestJob = {
      _id: newId('kjob'), workspaceId: updated.workspaceId, sourceId: updated._id, generation: updated.generation, status: 'running',
      queue: [first], seen: [first.ref], pagesDone: 0, pagesFailed: 0, errors: [], createdAt: now, updatedAt: now,
    };
    await this.jobs.insertOne(job);
    this.launch(job, false);
    return updated;
  }

  /**
   * Scale-out: how long a job stays with a process that stopped renewing its claim (LEASE_MS, like a
   * conversation's lease), and how often every process looks for such jobs.
   */
  private get claimMs(): number { return this.app.scale?.leaseMs ?? 10_000; }

  /** Picks up every job a previous process left running (scale-out: also every claimMs, for a dead process's). */
  async resumeAll(): Promise<number> {
    if (this.app.scale && !this.sweeping) {
      this.sweeping = setInterval(() => void this.resumeAll().catch(() => {}), this.claimMs);
      this.sweeping.unref();
    }
    const left = await this.jobs.find({ status: 'running' }, { crossWorkspace: true, sort: [['_id', 1]] });
    for (const job of left) if (!this.running.has(job.sourceId)) this.launch(job, true);
    // Scale-out: every sweep finds the jobs other processes are running; the one that claims a job says so.
    if (left.length && !this.app.scale) this.app.log.info({ jobs: left.length }, 'resuming knowledge ingestion');
    return left.length;
  }

  async cancel(workspaceId: string, sourceId: string): Promise<void> {
    const run = this.running.get(sourceId);
    if (run) { run.controller.abort(); await run.done; }
    await this.jobs.updateMany({ workspaceId, sourceId, status: 'running' }, { $set: { status: 'cancelled', updatedAt: this.app.clock.now() } });
  }

  /** Resolves when the source's run (or every run) has finished; for tests and shutdown. */
  async idle(sourceId?: string): Promise<void> {
    while (true) {
      const runs = sourceId ? [this.running.get(sourceId)].filter((r) => !!r) : [...this.running.values()];
      if (runs.length === 0) return;
      await Promise.all(runs.map((r) => r.done));
    }
  }

  /** Stops every run without marking it: the jobs stay 'running' and resume at the next start. */
  async close(): Promise<void> {
    if (this.sweeping) clearInterval(this.sweeping);
    const runs = [...this.running.values()];
    for (const r of runs) r.controller.abort();
    await Promise.all(runs.map((r) => r.done));
  }

  private launch(job: IngestJob, resumed: boolean): void {
    const controller = new AbortController();
    const done = this.claimAndLoop(job, controller.signal, resumed)
      .catch((err) => this.app.log.error({ err, sourceId: job.sourceId }, 'knowledge ingestion failed'))
      .finally(() => { if (this.running.get(job.sourceId)?.controller === controller) this.running.delete(job.sourceId); });
    this.running.set(job.sourceId, { controller, done });
  }

  /** Scale-out: a job runs on the one process that claims it; the others skip it (resumeAll retries later). */
  private async claimAndLoop(job: IngestJob, signal: AbortSignal, resumed: boolean): Promise<void> {
    const node = this.app.scale;
    if (!node) return this.run(job, signal);
    const claim = await holdClaim(node, `kjob:${job._id}`, this.claimMs);
    if (!claim) return;
    try {
      // The sweep's copy was read before the claim: the job may have finished, been cancelled or moved on since
      // (its runner released the claim just before), so this process continues from the stored record.
      const current = resumed ? await this.jobs.findById(job.workspaceId, job._id) : job;
      if (current?.status !== 'running') return;
      if (resumed) this.app.log.info({ sourceId: job.sourceId, jobId: job._id, node: node.id }, 'knowledge ingestion resumed on this process');
      await this.run(current, signal, claim);
    } finally { await claim.release(); }
  }

  private async run(job: IngestJob, signal: AbortSignal, claim?: HeldClaim): Promise<void> {
    recordKnowledgeJob('started');
    try { await this.loop(job, signal, claim); } finally { recordKnowledgeJob('ended', job.status); }
  }

  private async loop(job: IngestJob, signal: AbortSignal, claim?: HeldClaim): Promise<void> {
    const { sources } = knowledgeCollections(this.app);
    let source = await sources.findById(job.workspaceId, job.sourceId);
    if (!source || source.generation !== job.generation) {
      await this.jobs.updateOne({ workspaceId: job.workspaceId, _id: job._id }, { $set: { status: 'cancelled' } });
      return;
    }
    source = (await sources.updateOne({ workspaceId: job.workspaceId, _id: source._id, generation: job.generation }, { $set: { status: 'indexing' } })) ?? source;
    const robots = new Map<string, Robots>();
    while (job.queue.length > 0) {
      if (signal.aborted) return;
      // Scale-out: cancelled (or restarted) on another process, or the claim lapsed: this run stops.
      if (claim && (claim.lost || (await this.jobs.findById(job.workspaceId, job._id))?.status !== 'running')) return;
      const batch = job.queue.splice(0, CRAWL_CONCURRENCY);
      const results = await Promise.allSettled(batch.map((item) => this.step(source!, item, robots, signal)));
      if (signal.aborted) return; // the batch is still in the saved queue: it runs again on resume
      results.forEach((r, i) => {
        const item = batch[i];
        if (r.status === 'fulfilled') {
          if (item.kind !== 'sitemap') job.pagesDone++;
          for (const next of r.value) this.enqueue(job, source!, next);
        } else {
          if (item.kind !== 'sitemap') job.pagesFailed++;
          else job.sitemapsFailed = (job.sitemapsFailed ?? 0) + 1;
          if (job.errors.length < MAX_ERRORS_KEPT) job.errors.push({ ref: item.ref, message: failureReason(this.app.log, r.reason, { workspaceId: job.workspaceId, sourceId: source!._id, ref: item.ref }) });
        }
      });
      await this.save(job, source);
    }
    await this.finish(job, source);
  }

  private enqueue(job: IngestJob, source: KnowledgeSource, item: JobItem): void {
    if (job.seen.includes(item.ref)) return;
    if (item.kind === 'page') {
      const pages = job.pagesDone + job.pagesFailed + job.queue.filter((q) => q.kind === 'page').length;
      if (pages >= source.settings.maxPages) return;
    }
    job.seen.push(item.ref);
    job.queue.push(item);
  }

  private async save(job: IngestJob, source: KnowledgeSource): Promise<void> {
    const now = this.app.clock.now();
    job.updatedAt = now;
    if (this.app.scale) {
      // Only while still running: a cancel from another process must not be overwritten (the next batch stops).
      // The status goes too: a job left 'running' would be taken up again by every process's sweep.
      const { _id, workspaceId, ...rest } = job;
      await this.jobs.updateOne({ workspaceId, _id, status: 'running' }, { $set: rest });
    } else await this.jobs.replaceOne(job);
    const done = job.pagesDone + job.pagesFailed;
    await knowledgeCollections(this.app).sources.updateOne({ workspaceId: source.workspaceId, _id: source._id, generation: job.generation }, {
      $set: { progress: { done, total: done + job.queue.filter((q) => q.kind !== 'sitemap').length }, updatedAt: now },
    });
  }

  private async finish(job: IngestJob, source: KnowledgeSource): Promise<void> {
    const { sources, documents, chunks } = knowledgeCollections(this.app);
    // Pages that this run did not see any more (gone from the sitemap or site) leave the index.
    await removeDocuments(this.app, this.lexical, source, job.generation);
    const scope = { workspaceId: source.workspaceId, sourceId: source._id };
    const withoutVectors = { ...scope, vectorError: { $exists: true } };
    const [documentCount, chunkCount, noVectorCount] = await Promise.all([documents.count(scope), chunks.count(scope), documents.count(withoutVectors)]);
    const firstNoVector = noVectorCount ? await documents.findOne(withoutVectors) : null;
    // Nothing indexed and something failed (a page, or the sitemap that would have listed the pages): failed.
    const failed = job.pagesDone === 0 && job.pagesFailed + (job.sitemapsFailed ?? 0) > 0;
    const now = this.app.clock.now();
    const errors = [
      // A file or a text is one document: its reason alone (no "1 page(s) failed" for something that is not a page).
      job.errors.length ? (source.kind === 'file' || source.kind === 'text' ? job.errors[0].message : `${failureCount(job)} failed; first: ${job.errors[0].message}`) : '',
      firstNoVector ? `${noVectorCount} document(s) have no vectors (lexical search only; reindex to add them); first: ${firstNoVector.vectorError}` : '',
    ].filter(Boolean);
    await sources.updateOne({ workspaceId: source.workspaceId, _id: source._id, generation: job.generation }, {
      $set: { status: failed ? 'failed' : 'ready', documentCount, chunkCount, indexedAt: now, updatedAt: now, error: errors.length ? errors.join('. ') : null },
    });
    job.status = failed ? 'failed' : 'done';
    await this.save(job, source);
  }

  /** One queue item; returns the items it discovered. */
  private async step(source: KnowledgeSource, item: JobItem, robots: Map<string, Robots>, signal: AbortSignal): Promise<JobItem[]> {
    if (item.kind === 'text') {
      await indexDocument(this.app, this.lexical, source, { ref: 'text', url: null, bytes: Buffer.from(source.text ?? '', 'utf8'), type: 'markdown', title: source.name }, signal);
      return [];
    }
    if (item.kind === 'file') {
      const f = source.file && (await this.app.store.files.get(source.workspaceId, source.file.fileId));
      if (!f || !source.file) throw new Error('the uploaded file is missing');
      const type = sniffDocumentType(f.data, source.file.contentType, source.file.filename);
      await indexDocument(this.app, this.lexical, source, { ref: 'file', url: null, bytes: f.data, type, filename: source.file.filename, fallbackTitle: source.name }, signal);
      return [];
    }
    // robots.txt is read for crawls and sitemaps (not for a single page a person asked for).
    const rules = source.kind === 'page' ? null : await this.robotsFor(item.ref, robots, signal);
    if (source.kind === 'crawl' && rules && !rules.isAllowed(item.ref)) {
      throw new Error(`${item.ref}: robots.txt does not allow this page`);
    }
    const page = await this.hosts.run(new URL(item.ref).host, rules?.crawlDelayMs ?? 0, signal, () => fetchPage(this.client, item.ref, signal));
    if (item.kind === 'sitemap') {
      const { pages, sitemaps } = parseSitemap(page.bytes.toString('utf8'));
      const nested = item.depth < MAX_SITEMAP_NESTING ? sitemaps.map((ref) => ({ kind: 'sitemap' as const, ref: canonicalUrl(ref), depth: item.depth + 1 })) : [];
      const allowed: JobItem[] = [];
      for (const ref of pages) if ((await this.robotsFor(ref, robots, signal)).isAllowed(ref)) allowed.push({ kind: 'page', ref: canonicalUrl(ref), depth: 0 });
      return [...nested, ...allowed];
    }
    const type = pageType(page);
    if (!type) throw new Error(`${item.ref}: content type ${page.contentType || 'unknown'} is not a page`);
    // The page is what the redirects led to: it is stored under its final URL and its links resolve against it.
    const finalUrl = canonicalUrl(page.url || item.ref);
    if (source.kind === 'crawl' && source.url && !sameSite(source.url, finalUrl)) {
      throw new Error(`${item.ref}: redirected off the site to ${new URL(finalUrl).host}; not indexed`);
    }
    if (source.kind === 'crawl' && finalUrl !== item.ref && !(await this.robotsFor(finalUrl, robots, signal)).isAllowed(finalUrl)) {
      throw new Error(`${item.ref}: redirected to ${finalUrl}, which robots.txt does not allow`);
    }
    const { links } = await indexDocument(this.app, this.lexical, source, { ref: finalUrl, url: finalUrl, bytes: page.bytes, type }, signal);
    if (source.kind !== 'crawl' || !source.url || item.depth >= source.settings.maxDepth) return [];
    const next: JobItem[] = [];
    for (const link of links) {
      if (!sameSite(source.url, link) || NOT_A_PAGE.test(new URL(link).pathname)) continue;
      if (!(await this.robotsFor(link, robots, signal)).isAllowed(link)) continue;
      next.push({ kind: 'page', ref: canonicalUrl(link), depth: item.depth + 1 });
    }
    return next;
  }

  private async robotsFor(url: string, cache: Map<string, Robots>, signal: AbortSignal): Promise<Robots> {
    const origin = new URL(url).origin;
    let r = cache.get(origin);
    if (!r) { r = await loadRobots(this.client, origin, signal); cache.set(origin, r); }
    return r;
  }
}

/** "2 page(s)", "1 sitemap(s)" or both. */
function failureCount(job: IngestJob): string {
  const sitemaps = job.sitemapsFailed ?? 0;
  return [job.pagesFailed || !sitemaps ? `${job.pagesFailed} page(s)` : '', sitemaps ? `${sitemaps} sitemap(s)` : ''].filter(Boolean).join(' and ');
}

function firstItem(source: KnowledgeSource): JobItem {
  switch (source.kind) {
    case 'text': return { kind: 'text', ref: 'text', depth: 0 };
    case 'file': return { kind: 'file', ref: 'file', depth: 0 };
    case 'sitemap': return { kind: 'sitemap', ref: canonicalUrl(source.url!), depth: 0 };
    default: return { kind: 'page', ref: canonicalUrl(source.url!), depth: 0 };
  }
}
