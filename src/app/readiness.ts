/**
 * Whether this process can serve (/readyz): a registry of named checks. Built in: the store answers a read,
 * start-up finished (stores open, indexes made, modules started), and the process is not draining. Other parts
 * add their own with `readiness.add(name, check)`; scale-out reports its coordination server (Redis) as a
 * check that is not required: the process can serve without it.
 */
import type { AppContext } from './context.js';
import { diskState } from '../store/disk-full.js';

/** Resolves null when fine, or a sentence saying what is wrong and what to look at. */
export type ReadinessCheck = () => Promise<string | null> | string | null;

export interface ReadinessReport { ready: boolean; checks: Record<string, { ok: boolean; problem?: string }> }

/** A check that takes longer than this counts as failed: a load balancer must not wait on a hung store. */
export const CHECK_TIMEOUT_MS = 2_000;

export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly informational = new Set<string>();
  private started = false;
  private draining = false;

  constructor(app: AppContext) {
    this.add('startup', () => (this.started ? null : 'the server is still starting (opening stores, creating indexes, starting modules)'));
    this.add('draining', () => (this.draining ? 'the server is shutting down and takes no new work' : null));
    this.add('store', async () => {
      await app.store.collection('workspaces').count({}, { crossWorkspace: true });
      return null;
    });
    // A full disk fails every write: the process cannot take a message or a sign-in (src/store/disk-full.ts).
    this.add('disk', () => diskState(app).check());
    // Reported, not required: without Redis this process still serves its own conversations, REST and sockets
    // (docs/operations.md, Redis lost mid-run); taking every process out of the balancer would stop them all.
    const scale = app.scale;
    if (scale) this.add('coordination', () => (scale.healthy ? null : 'the coordination server (REDIS_URL) does not answer: new conversations and requests for other processes are refused until it returns'), { required: false });
  }

  /** Adds (or replaces) a named check; one that is not `required` is reported but leaves the process ready. */
  add(name: string, check: ReadinessCheck, o: { required?: boolean } = {}): void {
    this.checks.set(name, check);
    if (o.required === false) this.informational.add(name); else this.informational.delete(name);
  }

  markStarted(): void { this.started = true; }
  /** From now on /readyz answers 503, so load balancers send new visitors elsewhere. */
  beginDrain(): void { this.draining = true; }
  get isDraining(): boolean { return this.draining; }

  async report(): Promise<ReadinessReport> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const problem = await Promise.race([
          Promise.resolve().then(check),
          new Promise<string>((resolve) => { timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS); }),
        ]);
        return [name, problem ? { ok: false, problem } : { ok: true }] as const;
      } catch (err) {
        return [name, { ok: false, problem: `failed: ${(err as Error)?.message ?? String(err)}` }] as const;
      } finally {
        clearTimeout(timer);
      }
    }));
    const checks = Object.fromEntries(entries);
    return { ready: entries.every(([name, c]) => c.ok || this.informational.has(name)), checks };
  }
}

