/**
 * Records already serialised, for a write too large to build on the event loop (a 20,000-passage document is
 * 20 MB of text): each record's JSON (UTF-8) back to back in shared memory, `ends[i]` where record i ends. A
 * worker makes them (workers/tasks/chunk-document.ts); the store's thread and the lexical index's thread read the
 * same memory (posting a SharedArrayBuffer shares it, nothing is copied); nobody writes to it once made. The event
 * loop only passes them on, or reads a few records at a time (`decodeRecords`).
 */
export interface EncodedRecords {
  bytes: Uint8Array;
  ends: Uint32Array;
}

export const encodedCount = (rows: EncodedRecords) => rows.ends.length;

/** Serialises records into shared memory (on a worker). */
export function encodeRecords(records: readonly object[]): EncodedRecords {
  const json = records.map((r) => JSON.stringify(r));
  const ends = new Uint32Array(new SharedArrayBuffer(json.length * 4));
  let size = 0;
  for (let i = 0; i < json.length; i++) ends[i] = size += Buffer.byteLength(json[i]);
  const bytes = new Uint8Array(new SharedArrayBuffer(size));
  const out = Buffer.from(bytes.buffer, 0, size);
  for (let i = 0, at = 0; i < json.length; at = ends[i++]) out.write(json[i], at, 'utf8');
  return { bytes, ends };
}

/** Record i's JSON text. */
export function recordJson(rows: EncodedRecords, i: number): string {
  const start = i === 0 ? 0 : rows.ends[i - 1];
  return Buffer.from(rows.bytes.buffer, rows.bytes.byteOffset, rows.bytes.byteLength).toString('utf8', start, rows.ends[i]);
}

/** Records `from` to `to` (exclusive) as objects. */
export function decodeRecords<T>(rows: EncodedRecords, from = 0, to = encodedCount(rows)): T[] {
  const out: T[] = [];
  for (let i = from; i < Math.min(to, rows.ends.length); i++) out.push(JSON.parse(recordJson(rows, i)) as T);
  return out;
}
