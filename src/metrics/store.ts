/**
 * Times every document-store call by adapter and call name. The caller gets the adapter's own promise (timing
 * hangs off it), so an answer that arrives at once, as the embedded store's do inside a sync window, still does.
 */
import type { Collection, Doc, DocumentStore } from '../store/types.js';
import { m, metricsEnabled, timer } from './registry.js';

const CALLS = ['insertOne', 'insertMany', 'findById', 'findOne', 'find', 'findFields', 'count', 'updateOne', 'updateMany', 'replaceOne', 'replaceMany', 'replaceEncoded', 'deleteOne', 'deleteMany'] as const;

function timed<A extends unknown[], R>(adapter: string, call: string, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  const labels = { adapter, call };
  return (...args: A) => {
    if (!metricsEnabled()) return fn(...args);
    const t0 = performance.now();
    const p = fn(...args);
    p.then(
      () => timer(m.storeDuration, `s ${adapter} ${call}`, labels).observe((performance.now() - t0) / 1000),
      () => m.storeErrors.inc(labels),
    );
    return p;
  };
}

/** The same store, its collections' calls timed (collections wrapped once each); other members pass through. */
export function instrumentStore(store: DocumentStore): DocumentStore {
  const wrapped = new WeakMap<object, Collection<Doc>>();
  const adapter = store.kind;
  const collection = <T extends Doc>(name: string, spec?: Parameters<DocumentStore['collection']>[1]): Collection<T> => {
    const c = store.collection<T>(name, spec) as unknown as Collection<Doc>;
    let w = wrapped.get(c);
    if (!w) {
      w = Object.create(c) as Collection<Doc>;
      for (const call of CALLS) {
        const fn = c[call] as ((...a: unknown[]) => Promise<unknown>) | undefined;
        if (typeof fn === 'function') (w as unknown as Record<string, unknown>)[call] = timed(adapter, call, fn.bind(c));
      }
      wrapped.set(c, w);
    }
    return w as unknown as Collection<T>;
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'collection') return collection;
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
