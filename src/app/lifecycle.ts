import type { Logger } from '../kernel/log.js';

/**
 * The services of one app in the order the composition root (src/compose.ts) created them; `stop()` stops them
 * in the reverse order, so a service stops before everything it was handed. Each step is logged (debug) by name.
 */
export class Lifecycle {
  private readonly created: Array<{ name: string; stop: (() => Promise<void> | void) | null }> = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly log: Logger) {}

  /** Records a service just created (with how it stops, if it holds anything) and returns it. */
  add<T>(name: string, service: T, stop?: (service: T) => Promise<void> | void): T {
    this.created.push({ name, stop: stop ? () => stop(service) : null });
    this.log.debug({ service: name }, 'service created');
    return service;
  }

  /** The names in creation order. */
  get names(): string[] { return this.created.map((c) => c.name); }

  /** Stops every service, last created first; a step that fails is logged and the others still run. Once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const { name, stop } of [...this.created].reverse()) {
        try { await stop?.(); } catch (err) { this.log.error({ err, service: name }, 'stopping a service failed'); }
        this.log.debug({ service: name }, 'service stopped');
      }
    })();
    return this.stopping;
  }
}
