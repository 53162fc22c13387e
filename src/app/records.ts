import type { Collection, CollectionSpec, Doc, DocumentStore } from '../store/types.js';

/**
 * Every record collection of the server, opened once at start-up (`openRecords`, src/records-root.ts) and read as
 * `app.records.users`. Each area declares its collections here, beside their records, with a module augmentation
 * (`declare module '../app/records.js' { interface Records { users: Collection<UserRecord> } }`), and their store
 * names and indexes in a `RecordSpecs` object the root opens: one place per collection.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- each area adds its collections (see above)
export interface Records {}

/** How one collection is opened: its name in the store, its indexes and list fields. */
export interface RecordSpec extends CollectionSpec {
  readonly name: string;
}

/** The specs of some of the collections (an area's), or of all of them (the root's). */
export type RecordSpecs<K extends keyof Records = keyof Records> = { readonly [P in K]: RecordSpec };

/** Opens every collection of `specs` (each creates its table and indexes if missing). */
export function openCollections(store: DocumentStore, specs: RecordSpecs): Records {
  const opened: Record<string, Collection<Doc>> = {};
  for (const [key, { name, ...spec }] of Object.entries(specs) as Array<[string, RecordSpec]>) opened[key] = store.collection(name, spec);
  return opened as unknown as Records;
}
