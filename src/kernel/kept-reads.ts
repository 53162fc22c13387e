/**
 * What a store read gave, kept per key in memory (the bots lists, the published bots): one read however many ask
 * at once (they join it), kept until dropped, and past its `until` served once more while it is read again beside
 * the caller. A drop starts a new version: a read that began before it is neither kept nor joined, so nobody gets
 * what was there before a change. At most `max` keys are kept (the longest kept go first).
 */
export class KeptReads<E extends { until: number }> {
  readonly entries = new Map<string, E>();
  private readonly loads = new Map<string, { version: number; promise: Promise<E> }>();
  private version = 0;

  constructor(private readonly max: number, private readonly now: () => number) {}

  /**
   * The kept entry, if any; past its time a read again starts beside it (`refreshFailed` hears its failure, and the
   * entry is then forgotten: not served on and on while the store fails, the next caller reads and sees it).
   */
  kept(key: string, load: () => Promise<E>, refreshFailed: (err: unknown) => void): E | undefined {
    const kept = this.entries.get(key);
    if (kept && kept.until <= this.now() && !this.loads.has(key)) {
      this.read(key, load).catch((err) => {
        if (this.entries.get(key) === kept) this.entries.delete(key);
        refreshFailed(err);
      });
    }
    return kept;
  }

  /** Reads the entry (or joins the read under way since the last drop) and keeps it unless a drop came meanwhile. */
  read(key: string, load: () => Promise<E>): Promise<E> {
    const running = this.loads.get(key);
    if (running && running.version === this.version) return running.promise;
    const version = this.version;
    const promise = load().then((entry) => {
      if (this.version === version) this.keep(key, entry);
      return entry;
    }).finally(() => { if (this.loads.get(key)?.promise === promise) this.loads.delete(key); });
    this.loads.set(key, { version, promise });
    return promise;
  }

  /** A change: reads under way are neither kept nor joined; the caller deletes the entries it no longer trusts. */
  drop(): void {
    this.version++;
  }

  private keep(key: string, entry: E): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
  }
}
